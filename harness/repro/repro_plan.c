#include "harness/repro/repro_plan.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

const char *const sp_repro_topologies[SP_REPRO_N_TOPOS] = {
	"equal3", "skew4", "u10",
};
const int sp_repro_iodepths[SP_REPRO_N_QD] = { 1, 2, 32, 64 };

static int topology_index(const char *name)
{
	int t;

	for (t = 0; t < SP_REPRO_N_TOPOS; t++) {
		if (!strcmp(sp_repro_topologies[t], name))
			return t;
	}
	return -1;
}

int sp_repro_qd_index(int iodepth)
{
	int q;

	for (q = 0; q < SP_REPRO_N_QD; q++)
		if (sp_repro_iodepths[q] == iodepth)
			return q;
	return -1;
}

static int qd_index(const char *text)
{
	char digits[8];
	int q;

	for (q = 0; q < SP_REPRO_N_QD; q++) {
		snprintf(digits, sizeof(digits), "%d", sp_repro_iodepths[q]);
		if (!strcmp(digits, text))
			return q;
	}
	return -1;
}

/* "a+b+c" or "all" into a mask of indexes found by lookup. */
static int parse_set(char *text, int (*lookup)(const char *), int n_all,
		     unsigned *mask, const char **bad)
{
	char *save = NULL, *word;
	int index;

	*mask = 0;
	if (text[0] == '+' || text[strlen(text) - 1] == '+' || strstr(text, "++")) {
		*bad = text;
		return -EINVAL;
	}
	if (!strcmp(text, "all")) {
		*mask = (1u << n_all) - 1;
		return 0;
	}
	for (word = strtok_r(text, "+", &save); word;
	     word = strtok_r(NULL, "+", &save)) {
		index = lookup(word);
		if (index < 0) {
			*bad = word;
			return -EINVAL;
		}
		*mask |= 1u << index;
	}
	if (!*mask) {
		*bad = text;
		return -EINVAL;
	}
	return 0;
}

static int rw_index(const char *text)
{
	return sp_ref_rw_parse(text);
}

static int parse_item(char *item, struct sp_repro_plan *plan, char *err,
		      size_t errlen)
{
	char copy[128], *parts[3] = { NULL, NULL, NULL }, *save = NULL;
	unsigned rw_mask = (1u << SP_REF_N_RW) - 1;
	unsigned qd_mask = (1u << SP_REPRO_N_QD) - 1;
	const char *bad = NULL;
	int t, rw, q, n = 0;
	char *part;

	snprintf(copy, sizeof(copy), "%s", item);
	for (part = strtok_r(item, "/", &save); part && n < 4;
	     part = strtok_r(NULL, "/", &save))
		parts[n < 3 ? n : 2] = part, n++;
	if (n == 0 || n > 3) {
		snprintf(err, errlen,
			 "case '%s': want TOPOLOGY[/RW[+RW]][/QD[+QD]]", copy);
		return -EINVAL;
	}
	t = topology_index(parts[0]);
	if (t < 0) {
		snprintf(err, errlen,
			 "case '%s': unknown topology '%s' (equal3, skew4, u10)",
			 copy, parts[0]);
		return -EINVAL;
	}
	if (parts[1] && parse_set(parts[1], rw_index, SP_REF_N_RW, &rw_mask, &bad)) {
		snprintf(err, errlen,
			 "case '%s': unknown rw mode '%s' (read, write, randread, randwrite)",
			 copy, bad);
		return -EINVAL;
	}
	if (parts[2] && parse_set(parts[2], qd_index, SP_REPRO_N_QD, &qd_mask, &bad)) {
		snprintf(err, errlen,
			 "case '%s': iodepth '%s' was not published (1, 2, 32, 64)",
			 copy, bad);
		return -EINVAL;
	}
	for (rw = 0; rw < SP_REF_N_RW; rw++)
		for (q = 0; q < SP_REPRO_N_QD; q++)
			if ((rw_mask >> rw & 1) && (qd_mask >> q & 1))
				plan->want[t][rw][q] = 1;
	return 0;
}

int sp_repro_plan_parse(const char *spec, struct sp_repro_plan *plan,
			char *err, size_t errlen)
{
	char text[512], *save = NULL, *item;
	int ret;

	memset(plan, 0, sizeof(*plan));
	if (!spec || !strcmp(spec, "all"))
		spec = "equal3,skew4,u10";
	if (strlen(spec) >= sizeof(text)) {
		snprintf(err, errlen, "--cases is too long");
		return -EINVAL;
	}
	snprintf(text, sizeof(text), "%s", spec);
	for (item = strtok_r(text, ",", &save); item;
	     item = strtok_r(NULL, ",", &save)) {
		ret = parse_item(item, plan, err, errlen);
		if (ret)
			return ret;
	}
	if (!sp_repro_plan_points(plan)) {
		snprintf(err, errlen, "--cases '%s' names no case", spec);
		return -EINVAL;
	}
	return 0;
}

size_t sp_repro_plan_points(const struct sp_repro_plan *plan)
{
	size_t t, rw, q, n = 0;

	for (t = 0; t < SP_REPRO_N_TOPOS; t++)
		for (rw = 0; rw < SP_REF_N_RW; rw++)
			for (q = 0; q < SP_REPRO_N_QD; q++)
				n += plan->want[t][rw][q];
	return n;
}

int sp_repro_plan_has_topology(const struct sp_repro_plan *plan, size_t t)
{
	size_t rw, q;

	for (rw = 0; rw < SP_REF_N_RW; rw++)
		for (q = 0; q < SP_REPRO_N_QD; q++)
			if (plan->want[t][rw][q])
				return 1;
	return 0;
}

int sp_repro_plan_iodepths(const struct sp_repro_plan *plan, size_t t,
			   enum sp_ref_rw rw, char *buf, size_t len)
{
	size_t used = 0, q;
	int n = 0;

	buf[0] = '\0';
	for (q = 0; q < SP_REPRO_N_QD; q++) {
		if (!plan->want[t][rw][q])
			continue;
		used += (size_t)snprintf(buf + used, len > used ? len - used : 0,
					 "%s%d", n++ ? "," : "",
					 sp_repro_iodepths[q]);
	}
	return n;
}
