/* The /run/slowpath journal: format, replay, files. See state.h. */
#include "harness/bringup/state.h"
#include "common/file.h"
#include "common/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *const sp_step_names[] = {
	"backing", "iscsid", "netns", "veth", "tgtd", "target", "netem",
	"discovery", "login", "map", NULL,
};

#define MAX_JOURNAL SP_FILE_TEXT_MAX
#define MAX_TOKS 24

void sp_state_init(struct sp_state *st)
{
	memset(st, 0, sizeof(*st));
	st->version = SP_STATE_VERSION;
	st->scale = 1;
	sp_dm_selector_init(&st->sel, SP_SEL_ST);
	sp_initiator_init(&st->init);
}

static int bad(char *err, size_t errlen, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int bad(char *err, size_t errlen, int line, const char *fmt, ...)
{
	va_list ap;
	int n = 0;

	if (err && errlen) {
		n = snprintf(err, errlen, "line %d: ", line);
		if (n < 0 || (size_t)n >= errlen)
			n = 0;
		va_start(ap, fmt);
		vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static int copy(char *dst, size_t len, const char *src)
{
	if (strlen(src) >= len)
		return -1;
	strcpy(dst, src);
	return 0;
}

static int to_uint(const char *s, unsigned long long max,
		   unsigned long long *out)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*out = strtoull(s, &end, 10);
	return (*end || errno || *out > max) ? -1 : 0;
}

static int to_i64(const char *s, int64_t *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (!*s || *end || errno)
		return -1;
	*out = v;
	return 0;
}

static int enum_index(const char *const *names, const char *s)
{
	int i;

	for (i = 0; names[i]; i++)
		if (!strcmp(names[i], s))
			return i;
	return -1;
}

static struct sp_state_path *path_by_index(struct sp_state *st,
					   const char *tok)
{
	unsigned long long n;
	size_t i;

	if (to_uint(tok, SP_TOPO_MAX_PATHS, &n))
		return NULL;
	for (i = 0; i < st->npaths; i++)
		if (st->paths[i].index == n)
			return &st->paths[i];
	return NULL;
}

/* "k=v" of a path line into p. */
static int path_kv(struct sp_state_path *p, char *kv)
{
	char *v = strchr(kv, '=');
	unsigned long long u;
	int64_t i;
	int e;

	if (!v)
		return -1;
	*v++ = '\0';
	if (!strcmp(kv, "label"))
		return copy(p->label, sizeof(p->label), v);
	if (!strcmp(kv, "netns"))
		return copy(p->netns, sizeof(p->netns), v);
	if (!strcmp(kv, "hif"))
		return copy(p->host_if, sizeof(p->host_if), v);
	if (!strcmp(kv, "tif"))
		return copy(p->target_if, sizeof(p->target_if), v);
	if (!strcmp(kv, "target"))
		return copy(p->target_ip, sizeof(p->target_ip), v);
	if (!strcmp(kv, "init")) {
		char *slash = strchr(v, '/');

		if (!slash || to_uint(slash + 1, 32, &u))
			return -1;
		*slash = '\0';
		p->prefix_len = (int)u;
		return copy(p->initiator_ip, sizeof(p->initiator_ip), v);
	}
	if (!strcmp(kv, "mech") || !strcmp(kv, "dist")) {
		e = enum_index(kv[0] == 'm' ? sp_mech_names : sp_dist_names, v);
		if (e < 0)
			return -1;
		if (kv[0] == 'm')
			p->mech = (enum sp_mech)e;
		else
			p->dist = (enum sp_dist)e;
		return 0;
	}
	if (!strcmp(kv, "servers")) {
		if (to_uint(v, 64, &u))
			return -1;
		p->servers = (unsigned int)u;
		return 0;
	}
	if (!strcmp(kv, "port") || !strcmp(kv, "ctl") || !strcmp(kv, "rt")) {
		if (to_uint(v, 65535, &u))
			return -1;
		if (kv[0] == 'p')
			p->portal_port = (unsigned int)u;
		else if (kv[0] == 'c')
			p->ctl_port = (unsigned int)u;
		else
			p->relative_throughput = (unsigned int)u;
		return 0;
	}
	if (!strcmp(kv, "cpus")) {
		char *end;

		errno = 0;
		p->cpumask = strtoull(v, &end, 16);
		return !*v || *end || errno ? -1 : 0;
	}
	if (to_i64(v, &i) || i < 0)
		return -1;
	if (!strcmp(kv, "read"))
		p->read_ns = i;
	else if (!strcmp(kv, "write"))
		p->write_ns = i;
	else if (!strcmp(kv, "jitter"))
		p->jitter_ns = i;
	else if (!strcmp(kv, "netem"))
		p->netem_ns = i;
	else if (!strcmp(kv, "netem_jitter"))
		p->netem_jitter_ns = i;
	else if (!strcmp(kv, "service"))
		p->service_ns = i;
	else
		return -1;
	return 0;
}

static int parse_line(struct sp_state *st, char **t, int n, int line,
		      char *err, size_t errlen)
{
	unsigned long long u;
	struct sp_state_path *p;
	int i, s;

#define NEED(k) do { if (n < (k)) return bad(err, errlen, line, \
	"'%s' needs %d fields", t[0], (k) - 1); } while (0)
	if (!strcmp(t[0], "slowpath-state")) {
		NEED(2);
		if (to_uint(t[1], 1000, &u) || u != SP_STATE_VERSION)
			return bad(err, errlen, line, "version '%s' is not %d",
				   t[1], SP_STATE_VERSION);
	} else if (!strcmp(t[0], "topology")) {
		NEED(3);
		if (copy(st->topology, sizeof(st->topology), t[1]) ||
		    copy(st->topo_file, sizeof(st->topo_file), t[2]))
			return bad(err, errlen, line, "topology too long");
	} else if (!strcmp(t[0], "tag")) {
		NEED(2);
		if (copy(st->tag, sizeof(st->tag), t[1]))
			return bad(err, errlen, line, "tag '%s' too long", t[1]);
	} else if (!strcmp(t[0], "iqn")) {
		NEED(2);
		if (copy(st->iqn, sizeof(st->iqn), t[1]))
			return bad(err, errlen, line, "iqn too long");
	} else if (!strcmp(t[0], "map")) {
		NEED(3);
		if (copy(st->map_name, sizeof(st->map_name), t[1]) ||
		    copy(st->map_uuid, sizeof(st->map_uuid), t[2]))
			return bad(err, errlen, line, "map name too long");
	} else if (!strcmp(t[0], "backing")) {
		NEED(4);
		if (copy(st->backing, sizeof(st->backing), t[1]) ||
		    to_uint(t[3], UINT64_MAX, &u))
			return bad(err, errlen, line, "bad backing '%s %s'",
				   t[1], t[3]);
		st->backing_created = !strcmp(t[2], "created");
		st->size_bytes = u;
	} else if (!strcmp(t[0], "selector")) {
		enum sp_selector k;
		int64_t bw, tm;

		NEED(4);
		if (sp_selector_parse(t[1], &k) || to_i64(t[2], &bw) ||
		    to_i64(t[3], &tm))
			return bad(err, errlen, line, "bad selector '%s %s %s'",
				   t[1], t[2], t[3]);
		sp_dm_selector_init(&st->sel, k);
		st->sel.base_weight = bw;
		st->sel.threshold_multiplier = tm;
	} else if (!strcmp(t[0], "path")) {
		NEED(2);
		if (to_uint(t[1], SP_TOPO_MAX_PATHS, &u) || !u)
			return bad(err, errlen, line, "path number '%s'", t[1]);
		if (path_by_index(st, t[1]))
			return bad(err, errlen, line, "path %s twice", t[1]);
		if (st->npaths >= SP_TOPO_MAX_PATHS)
			return bad(err, errlen, line, "too many paths");
		p = &st->paths[st->npaths];
		memset(p, 0, sizeof(*p));
		p->index = (unsigned int)u;
		for (i = 2; i < n; i++)
			if (path_kv(p, t[i]))
				return bad(err, errlen, line,
					   "bad path field '%s'", t[i]);
		st->npaths++;
	} else if (!strcmp(t[0], "begin")) {
		NEED(2);
		s = enum_index(sp_step_names, t[1]);
		if (s < 0)
			return bad(err, errlen, line, "unknown step '%s'", t[1]);
		if (s == SP_STEP_BACKING || s == SP_STEP_ISCSID ||
		    s == SP_STEP_MAP) {
			st->steps |= 1u << s;
			return 0;
		}
		NEED(3);
		p = path_by_index(st, t[2]);
		if (!p)
			return bad(err, errlen, line, "no path '%s'", t[2]);
		p->steps |= 1u << s;
	} else if (!strcmp(t[0], "pid")) {
		unsigned long long start = 0;

		NEED(4);
		if (to_uint(t[3], 1u << 30, &u) || !u ||
		    (n > 4 && to_uint(t[4], UINT64_MAX, &start)))
			return bad(err, errlen, line, "bad pid '%s'", t[3]);
		if (!strcmp(t[1], "iscsid")) {
			st->iscsid_pid = (pid_t)u;
			st->iscsid_start = start;
			return 0;
		}
		p = path_by_index(st, t[2]);
		if (!p || strcmp(t[1], "tgtd"))
			return bad(err, errlen, line, "bad pid line");
		p->tgtd_pid = (pid_t)u;
		p->tgtd_start = start;
	} else if (!strcmp(t[0], "run")) {
		unsigned long long start;

		NEED(2);
		if (!strcmp(t[1], "idle")) {
			st->fio_pid = 0;
			st->fio_start = 0;
			return 0;
		}
		NEED(4);
		if (strcmp(t[1], "fio") || to_uint(t[2], 1u << 30, &u) || !u ||
		    to_uint(t[3], UINT64_MAX, &start))
			return bad(err, errlen, line, "bad run line");
		st->fio_pid = (pid_t)u;
		st->fio_start = start;
	} else if (!strcmp(t[0], "disk")) {
		NEED(4);
		p = path_by_index(st, t[1]);
		if (!p || copy(p->disk, sizeof(p->disk), t[2]) ||
		    sscanf(t[3], "%u:%u", &p->major, &p->minor) != 2)
			return bad(err, errlen, line, "bad disk line");
		p->has_disk = 1;
	} else if (!strcmp(t[0], "delay")) {
		int64_t v[5];

		NEED(7);
		p = path_by_index(st, t[1]);
		for (i = 0; i < 5; i++)
			if (to_i64(t[2 + i], &v[i]) || v[i] < 0)
				p = NULL;
		if (!p)
			return bad(err, errlen, line, "bad delay line");
		p->read_ns = v[0];
		p->write_ns = v[1];
		p->jitter_ns = v[2];
		p->netem_ns = v[3];
		p->netem_jitter_ns = v[4];
	} else if (!strcmp(t[0], "store")) {
		NEED(2);
		if (copy(st->bstype, sizeof(st->bstype), t[1]))
			return bad(err, errlen, line, "bad store '%s'", t[1]);
	} else if (!strcmp(t[0], "sectors")) {
		NEED(2);
		if (to_uint(t[1], UINT64_MAX, &u))
			return bad(err, errlen, line, "bad sectors '%s'", t[1]);
		st->sectors = u;
	} else if (!strcmp(t[0], "complete")) {
		st->complete = 1;
	} else if (!strcmp(t[0], "chap")) {
		NEED(2);
		if (copy(st->chap_user, sizeof(st->chap_user), t[1]))
			return bad(err, errlen, line, "chap user too long");
	} else if (!strcmp(t[0], "scale")) {
		NEED(2);
		if (to_uint(t[1], UINT64_MAX, &u) || !u || (u & (u - 1)))
			return bad(err, errlen, line, "bad scale '%s'", t[1]);
		st->scale = u;
	} else if (!strcmp(t[0], "hst")) {
		NEED(2);
		if (to_uint(t[1], 63, &u))
			return bad(err, errlen, line, "bad hst shift '%s'",
				   t[1]);
		st->has_hst = 1;
		st->hst_shift = (unsigned int)u;
	} else if (!strcmp(t[0], "calib")) {
		int64_t tg, ms;

		NEED(4);
		p = path_by_index(st, t[1]);
		if (!p || to_i64(t[2], &tg) || to_i64(t[3], &ms) || tg <= 0 ||
		    ms < 0)
			return bad(err, errlen, line, "bad calib line");
		p->has_calib = 1;
		p->calib_target_ns = tg;
		p->calib_measured_ns = ms;
	} else if (!strcmp(t[0], "initiator") || !strcmp(t[0], "qtimeout") ||
		   !strcmp(t[0], "fault")) {
		char why[128];

		if (sp_state_parse_failover(st, t, n, why, sizeof(why)))
			return bad(err, errlen, line, "%s", why);
	} else {
		return bad(err, errlen, line, "unknown record '%s'", t[0]);
	}
	return 0;
#undef NEED
}

int sp_state_parse(const char *text, struct sp_state *st, char *err,
		   size_t errlen)
{
	char buf[1024];
	char *toks[MAX_TOKS], *save, *tok;
	const char *nl;
	int line = 0, n, ret;

	sp_state_init(st);
	while (*text) {
		size_t len;

		nl = strchr(text, '\n');
		if (!nl)
			break;	/* torn last write */
		line++;
		len = (size_t)(nl - text);
		if (len >= sizeof(buf))
			return bad(err, errlen, line, "line too long");
		memcpy(buf, text, len);
		buf[len] = '\0';
		text = nl + 1;
		n = 0;
		for (tok = strtok_r(buf, " \t", &save); tok && n < MAX_TOKS;
		     tok = strtok_r(NULL, " \t", &save))
			toks[n++] = tok;
		if (!n || toks[0][0] == '#')
			continue;
		if (line == 1 && strcmp(toks[0], "slowpath-state"))
			return bad(err, errlen, line,
				   "not a slowpath state file");
		ret = parse_line(st, toks, n, line, err, errlen);
		if (ret)
			return ret;
	}
	if (!line)
		return bad(err, errlen, 1, "empty state file");
	return 0;
}

static int has_space(const char *s)
{
	return !*s || strpbrk(s, " \t\n") != NULL;
}

int sp_state_fmt_selector(const struct sp_dm_selector *sel, char *buf,
			  size_t len)
{
	return sp_snprintf(buf, len, "selector %s %" PRId64 " %" PRId64 "\n",
		   sp_selector_short_name(sel->kind), sel->base_weight,
		   sel->threshold_multiplier);
}

int sp_state_fmt_header(const struct sp_state *st, char *buf, size_t len)
{
	char sel[96];

	if (has_space(st->topology) || has_space(st->topo_file) ||
	    has_space(st->tag) || has_space(st->iqn) ||
	    has_space(st->map_name) || has_space(st->map_uuid) ||
	    has_space(st->backing))
		return -EINVAL;
	if (sp_state_fmt_selector(&st->sel, sel, sizeof(sel)))
		return -ENOSPC;
	return sp_snprintf(buf, len,
		   "slowpath-state %d\ntopology %s %s\ntag %s\niqn %s\n"
		   "map %s %s\nbacking %s %s %" PRIu64 "\n%s",
		   SP_STATE_VERSION, st->topology, st->topo_file, st->tag,
		   st->iqn, st->map_name, st->map_uuid, st->backing,
		   st->backing_created ? "created" : "existing",
		   st->size_bytes, sel);
}

int sp_state_fmt_path(const struct sp_state_path *p, char *buf, size_t len)
{
	char serial[64] = "";

	if (has_space(p->label) || has_space(p->netns))
		return -EINVAL;
	/* only serial paths say so: other journals read as before */
	if (p->servers)
		snprintf(serial, sizeof(serial), " service=%" PRId64 " servers=%u",
			 p->service_ns, p->servers);
	return sp_snprintf(buf, len,
		   "path %u label=%s netns=%s hif=%s tif=%s init=%s/%d "
		   "target=%s port=%u ctl=%u mech=%s dist=%s rt=%u read=%" PRId64
		   " write=%" PRId64 " jitter=%" PRId64 " netem=%" PRId64
		   " netem_jitter=%" PRId64 " cpus=%" PRIx64 "%s\n",
		   p->index, p->label, p->netns, p->host_if, p->target_if,
		   p->initiator_ip, p->prefix_len, p->target_ip, p->portal_port,
		   p->ctl_port, sp_mech_names[p->mech], sp_dist_names[p->dist],
		   p->relative_throughput, p->read_ns, p->write_ns, p->jitter_ns,
		   p->netem_ns, p->netem_jitter_ns, p->cpumask, serial);
}

int sp_state_fmt_delay(const struct sp_state_path *p, char *buf, size_t len)
{
	return sp_snprintf(buf, len,
		   "delay %u %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64
		   " %" PRId64 "\n", p->index, p->read_ns, p->write_ns,
		   p->jitter_ns, p->netem_ns, p->netem_jitter_ns);
}

int sp_state_fmt_pid(const char *what, unsigned int index, pid_t pid,
		     unsigned long long start, char *buf, size_t len)
{
	if (!start)
		return sp_snprintf(buf, len, "pid %s %u %d\n", what, index,
				   (int)pid);
	return sp_snprintf(buf, len, "pid %s %u %d %llu\n", what, index,
			   (int)pid, start);
}

int sp_state_fmt_run(pid_t pid, unsigned long long start, char *buf,
		     size_t len)
{
	if (pid <= 0)
		return sp_snprintf(buf, len, "run idle\n");
	return sp_snprintf(buf, len, "run fio %d %llu\n", (int)pid, start);
}

int sp_state_fmt_scale(const struct sp_state *st, char *buf, size_t len)
{
	char scale[40] = "", hst[24] = "";

	if (st->scale > 1)
		snprintf(scale, sizeof(scale), "scale %llu\n",
			 (unsigned long long)st->scale);
	if (st->has_hst)
		snprintf(hst, sizeof(hst), "hst %u\n", st->hst_shift);
	return sp_snprintf(buf, len, "%s%s", scale, hst);
}

int sp_state_fmt_calib(const struct sp_state_path *p, char *buf, size_t len)
{
	return sp_snprintf(buf, len, "calib %u %" PRId64 " %" PRId64 "\n",
			   p->index, p->calib_target_ns, p->calib_measured_ns);
}

double sp_state_calib_residual(const struct sp_state_path *p)
{
	if (!p->has_calib || p->calib_target_ns <= 0)
		return 0;
	return (double)p->calib_measured_ns / (double)p->calib_target_ns - 1;
}

int sp_state_calib_worst(const struct sp_state *st, double bound)
{
	double r, worst = bound;
	size_t i;
	int at = -1;

	for (i = 0; i < st->npaths; i++) {
		if (!st->paths[i].has_calib)
			continue;
		r = fabs(sp_state_calib_residual(&st->paths[i]));
		if (r > worst) {
			worst = r;
			at = (int)i;
		}
	}
	return at;
}

struct sp_state_path *sp_state_find_path(struct sp_state *st,
					 const char *index_or_label)
{
	size_t i;
	struct sp_state_path *p = path_by_index(st, index_or_label);

	if (p)
		return p;
	for (i = 0; i < st->npaths; i++)
		if (!strcmp(st->paths[i].label, index_or_label) ||
		    !strcmp(st->paths[i].disk, index_or_label))
			return &st->paths[i];
	return NULL;
}

const char *sp_state_dir(void)
{
	const char *env = getenv("SLOWPATH_STATE_DIR");

	return env && *env ? env : SP_STATE_DIR;
}

static void journal_path(const char *dir, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", dir ? dir : sp_state_dir(),
		 SP_STATE_FILE);
}

int sp_state_create(const char *dir, int *fd)
{
	char path[512];
	const char *d = dir ? dir : sp_state_dir();

	if (mkdir(d, 0755) && errno != EEXIST)
		return -errno;
	journal_path(dir, path, sizeof(path));
	*fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC,
		   0644);
	return *fd < 0 ? -errno : 0;
}

int sp_state_open_append(const char *dir, int *fd)
{
	char path[512];

	journal_path(dir, path, sizeof(path));
	*fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	return *fd < 0 ? -errno : 0;
}

int sp_state_append(int fd, const char *line)
{
	size_t len = strlen(line);
	ssize_t n = write(fd, line, len);

	if (n < 0)
		return -errno;
	if ((size_t)n != len)
		return -EIO;
	return fdatasync(fd) && errno != EINVAL ? -errno : 0;
}

int sp_state_load(const char *dir, struct sp_state *st, char *err,
		  size_t errlen)
{
	char path[512];
	char *text;
	int ret;

	journal_path(dir, path, sizeof(path));
	/* a journal cut short would forget what `down` must undo */
	ret = sp_file_read(path, MAX_JOURNAL, &text, NULL);
	if (ret)
		return ret;
	ret = sp_state_parse(text, st, err, errlen);
	if (ret && err && errlen) {
		char tmp[SP_STATE_ERRLEN + 600];

		snprintf(tmp, sizeof(tmp), "%s: %s", path, err);
		snprintf(err, errlen, "%.*s", (int)(errlen - 1), tmp);
	}
	free(text);
	return ret;
}

int sp_state_remove(const char *dir)
{
	char path[512];

	journal_path(dir, path, sizeof(path));
	if (unlink(path) && errno != ENOENT)
		return -errno;
	return 0;
}
