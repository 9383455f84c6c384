/* The agent's store of kept results (lab_agent.h): when a command's
 * host went away, what it wrote stays in the guest's RAM overlay and
 * is named here (its sync folders, its window), to be fetched later by
 * `lab fetch` or `lab stop` (lab_fetch.c). Only the names are kept: the
 * files are already in the guest. */
#include "lab/lab_agent.h"

#include "common/log.h"
#include "lab/lab_frame.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* More than any user leaves unfetched; past it the oldest goes (said
 * in the agent's log). */
#define KEPT_MAX 16

struct kept_result {
	uint32_t id;
	struct sp_lab_walk window;
	char *roots[SP_LAB_KEPT_MAX_ROOTS + 1];
};

static struct kept_result kept[KEPT_MAX];
static size_t n_kept;
static uint32_t next_id = 1;

static void kept_drop(size_t i)
{
	size_t j;

	for (j = 0; kept[i].roots[j]; j++)
		free(kept[i].roots[j]);
	memmove(&kept[i], &kept[i + 1], (n_kept - i - 1) * sizeof(kept[0]));
	n_kept--;
	memset(&kept[n_kept], 0, sizeof(kept[0]));
}

static unsigned long kept_count(const struct kept_result *k)
{
	struct sp_lab_walk w = k->window;
	unsigned long n = 0;
	size_t j;

	w.count = &n;
	for (j = 0; k->roots[j]; j++)
		sp_lab_agent_walk(-1, (unsigned int)j, k->roots[j], &w);
	return n;
}

void sp_lab_kept_keep(char *const *roots, const struct timespec *since,
		      const struct timespec *until)
{
	struct kept_result k = { .window = { *since, *until, NULL } };
	unsigned long files;
	size_t j;

	for (j = 0; roots && roots[j] && j < SP_LAB_KEPT_MAX_ROOTS; j++)
		if (roots[j][0] == '/' && roots[j][1] && !(k.roots[j] = strdup(roots[j])))
			break;
	if (!k.roots[0])
		return;
	files = kept_count(&k);
	if (!files) {
		for (j = 0; k.roots[j]; j++)
			free(k.roots[j]);
		return;
	}
	if (n_kept == KEPT_MAX) {
		sp_warn("lab agent: more than %d kept results; the oldest (%lu "
			"files) is forgotten", KEPT_MAX, kept_count(&kept[0]));
		kept_drop(0);
	}
	k.id = next_id++;
	kept[n_kept++] = k;
	sp_info("lab agent: the host went away; %lu file%s of its command kept "
		"(result %u)", files, files == 1 ? "" : "s", (unsigned)k.id);
}

unsigned long sp_lab_kept_files(unsigned int *commands)
{
	unsigned long n = 0;
	size_t i;

	for (i = 0; i < n_kept; i++)
		n += kept_count(&kept[i]);
	*commands = (unsigned int)n_kept;
	return n;
}

static int send_one(int port, const struct kept_result *k)
{
	struct sp_lab_kept desc = { .id = k->id, .started = k->window.since.tv_sec };
	unsigned char *enc;
	size_t len, j;
	int ret;

	memcpy(desc.roots, k->roots, sizeof(desc.roots));
	ret = sp_lab_kept_encode(&desc, &enc, &len);
	if (ret)
		return 0;	/* cannot happen: we checked the roots */
	ret = sp_lab_agent_send(port, SP_LAB_F_KEPT, enc, len);
	free(enc);
	for (j = 0; !ret && k->roots[j]; j++)
		ret = sp_lab_agent_walk(port, (unsigned int)j, k->roots[j],
					&k->window);
	return ret;
}

int sp_lab_kept_serve(int port, const unsigned char *payload, size_t len)
{
	unsigned char code_be[4];
	uint32_t id;
	size_t i;
	int op, ret = 0, code = 0;

	if (sp_lab_kept_ask_decode(payload, len, &op, &id))
		return -EBADMSG;
	if (op == SP_LAB_KEPT_LIST) {
		for (i = 0; i < n_kept && !ret; i++)
			ret = send_one(port, &kept[i]);
	} else {
		/* the host wrote every file of it: it is the host's now */
		for (i = 0; i < n_kept && kept[i].id != id; i++)
			;
		if (i < n_kept)
			kept_drop(i);
		else
			code = 1;
	}
	if (ret)
		return ret;
	sp_lab_exit_encode(code, code_be);
	return sp_lab_agent_send(port, SP_LAB_F_EXIT, code_be, 4);
}
