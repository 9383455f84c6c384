/* A case: filled from the diskstats and fio it measured, written as
 * JSON into the run folder and loaded back from it; case_read.c reads
 * one case file's JSON. See case_result.h. */
#include "harness/measure/case_result.h"

#include "common/file.h"
#include "common/log.h"
#include "dm/selector.h"
#include "common/outdir.h"
#include "harness/measure/timeline.h"
#include "harness/measure/result_file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Unknown names as given: a case file may come from a build that knew
 * a selector this one does not. */
const char *sp_selector_short(const char *selector)
{
	enum sp_selector kind;

	if (sp_selector_parse(selector, &kind))
		return selector;
	return sp_selector_short_name(kind);
}

int sp_case_same_point(const struct sp_case_result *a,
		       const struct sp_case_result *b)
{
	/* run --kernels: a kernel's case compares with its own kernel's */
	return !strcmp(a->topology, b->topology) && !strcmp(a->rw, b->rw) &&
	       a->bs == b->bs && a->iodepth == b->iodepth &&
	       a->numjobs == b->numjobs &&
	       !strcmp(a->env.kernel, b->env.kernel);
}

void sp_case_bs_text(uint64_t bytes, char *buf, size_t len)
{
	static const char units[] = "kmg";
	int u = -1;

	while (bytes && bytes % 1024 == 0 && u < 2) {
		bytes /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(buf, len, "%llu", (unsigned long long)bytes);
	else
		snprintf(buf, len, "%llu%c", (unsigned long long)bytes, units[u]);
}

int sp_case_stem(const struct sp_case_result *c, char *buf, size_t len)
{
	char bs[24], jobs[16] = "";
	int n;

	sp_case_bs_text(c->bs, bs, sizeof(bs));
	if (c->numjobs > 1)
		snprintf(jobs, sizeof(jobs), "-j%d", c->numjobs);
	n = snprintf(buf, len, "%s-%s-%s-qd%d%s-%s", c->topology, c->rw, bs,
		     c->iodepth, jobs, sp_selector_short(c->selector));
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	/* the stem becomes a file name */
	for (; *buf; buf++)
		if (*buf == '/' || *buf == ' ')
			*buf = '_';
	return 0;
}
/* fio's total against the map's counts; a map disk that counts nothing
 * (NVMe native multipath's namespace disk keeps no stats on 6.1, its
 * paths' hidden disks do) is checked as the sum of its paths. */
static void crosscheck_total(const struct sp_fio_result *fio,
			     const char *name, const struct sp_diskstat *delta,
			     size_t n_paths)
{
	uint64_t r = delta[n_paths].v[SP_DS_READS];
	uint64_t w = delta[n_paths].v[SP_DS_WRITES];
	size_t i;

	if (!r && !w)
		for (i = 0; i < n_paths; i++) {
			r += delta[i].v[SP_DS_READS];
			w += delta[i].v[SP_DS_WRITES];
		}
	sp_fio_crosscheck_total(fio, name, r, w, 0.02);
}


int sp_case_fill(struct sp_case_result *c, const char *before_text,
		 const char *after_text, const char *fio_text)
{
	struct sp_diskstat before[SP_CASE_MAX_PATHS + 1];
	struct sp_diskstat after[SP_CASE_MAX_PATHS + 1];
	struct sp_diskstat delta[SP_CASE_MAX_PATHS + 1];
	const char *names[SP_CASE_MAX_PATHS + 1];
	struct sp_fio_result fio;
	size_t i, n = c->n_paths;
	uint64_t runtime;
	int ret;

	if (!n || n > SP_CASE_MAX_PATHS) {
		sp_err("case %s: %zu paths (1..%d)", c->topology, n,
		       SP_CASE_MAX_PATHS);
		return -EINVAL;
	}
	for (i = 0; i < n; i++)
		names[i] = c->path[i].name;
	if (c->has_map)
		names[n++] = c->map.name;
	ret = sp_diskstats_select(before_text, "diskstats before", names, n, before);
	if (!ret)
		ret = sp_diskstats_select(after_text, "diskstats after", names, n, after);
	if (!ret)
		ret = sp_diskstats_delta(before, after, n, delta);
	if (!ret)
		ret = sp_fio_parse(fio_text, "fio output", &fio);
	if (ret)
		return ret;
	/* fio's view should agree with our deltas; when it does not, the
	 * numbers stand but the user hears about it */
	runtime = fio.total.dir[SP_FIO_READ].runtime_ms;
	if (fio.total.dir[SP_FIO_WRITE].runtime_ms > runtime)
		runtime = fio.total.dir[SP_FIO_WRITE].runtime_ms;
	for (i = 0; i < n; i++)
		if (sp_fio_disk_find(&fio, delta[i].name))
			sp_fio_crosscheck(&fio, delta[i].name,
					  delta[i].v[SP_DS_READS],
					  delta[i].v[SP_DS_WRITES],
					  sp_fio_disk_util_tolerance(runtime));
	if (c->has_map)
		crosscheck_total(&fio, c->map.name, delta, c->n_paths);
	for (i = 0; i < c->n_paths; i++)
		c->path[i] = delta[i];
	if (c->has_map)
		c->map = delta[c->n_paths];
	c->fio = fio.total;
	c->fio_jobs = fio.n_jobs;
	c->fio_pct = fio.pct_kind;
	sp_fio_result_free(&fio);
	return 0;
}

/* ---- JSON ---- */

static json_object *stat_to_json(const struct sp_diskstat *d, int slow,
				 int with_slow)
{
	json_object *o = json_object_new_object(), *s = json_object_new_object();
	unsigned int f;

	json_object_object_add(o, "name", json_object_new_string(d->name));
	if (with_slow)
		json_object_object_add(o, "slow", json_object_new_boolean(slow));
	json_object_object_add(o, "major", json_object_new_int((int)d->major));
	json_object_object_add(o, "minor", json_object_new_int((int)d->minor));
	json_object_object_add(o, "n_fields", json_object_new_int((int)d->n_fields));
	for (f = 0; f < d->n_fields; f++)
		json_object_object_add(s, sp_ds_field_name(f),
				       json_object_new_int64((int64_t)d->v[f]));
	json_object_object_add(o, "delta", s);
	return o;
}

static json_object *lat_to_json(const struct sp_case_lat *l)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "count", json_object_new_int64((int64_t)l->count));
	json_object_object_add(o, "p50_ns", json_object_new_int64(l->p50_ns));
	json_object_object_add(o, "p99_ns", json_object_new_int64(l->p99_ns));
	json_object_object_add(o, "p999_ns", json_object_new_int64(l->p999_ns));
	return o;
}

static json_object *dir_to_json(const struct sp_fio_dir *d)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "ios", json_object_new_int64((int64_t)d->ios));
	json_object_object_add(o, "bytes", json_object_new_int64((int64_t)d->bytes));
	json_object_object_add(o, "iops", json_object_new_double(d->iops));
	json_object_object_add(o, "bw_kib", json_object_new_double(d->bw_kib));
	json_object_object_add(o, "runtime_ms",
			       json_object_new_int64((int64_t)d->runtime_ms));
	json_object_object_add(o, "clat_mean_us", json_object_new_double(d->clat_mean_us));
	json_object_object_add(o, "clat_p50_us", json_object_new_double(d->clat_p50_us));
	json_object_object_add(o, "clat_p99_us", json_object_new_double(d->clat_p99_us));
	json_object_object_add(o, "clat_p999_us", json_object_new_double(d->clat_p999_us));
	json_object_object_add(o, "lat_mean_us", json_object_new_double(d->lat_mean_us));
	return o;
}

void sp_case_family_from_map(struct sp_case_result *c)
{
	int nvme = c->has_map && !strncmp(c->map.name, "nvme", 4);

	snprintf(c->family, sizeof(c->family), "%s", nvme ? "nvme" : "dm");
}

/* a case made by hand (a test's, say) says nothing: its map tells */
static const char *case_family(const struct sp_case_result *c)
{
	struct sp_case_result m;

	if (c->family[0])
		return c->family;
	m.has_map = c->has_map;
	memcpy(m.map.name, c->map.name, sizeof(m.map.name));
	sp_case_family_from_map(&m);
	return !strcmp(m.family, "nvme") ? "nvme" : "dm";
}

json_object *sp_case_json_object(const struct sp_case_result *c)
{
	json_object *o = json_object_new_object(), *paths, *fio;
	size_t i;

	json_object_object_add(o, "slowpath_case", json_object_new_int(SP_CASE_FORMAT));
	json_object_object_add(o, "topology", json_object_new_string(c->topology));
	json_object_object_add(o, "selector", json_object_new_string(c->selector));
	json_object_object_add(o, "selector_family",
			       json_object_new_string(case_family(c)));
	json_object_object_add(o, "rw", json_object_new_string(c->rw));
	json_object_object_add(o, "bs", json_object_new_int64((int64_t)c->bs));
	json_object_object_add(o, "iodepth", json_object_new_int(c->iodepth));
	json_object_object_add(o, "numjobs", json_object_new_int(c->numjobs));
	paths = json_object_new_array();
	for (i = 0; i < c->n_paths; i++) {
		json_object *po = stat_to_json(&c->path[i], c->slow[i], 1);

		if (c->label[i][0]) {
			json_object_object_add(po, "label",
					       json_object_new_string(c->label[i]));
			json_object_object_add(po, "delay_ns",
					       json_object_new_int64(c->delay_ns[i]));
		}
		if (c->lat[i].has && c->lat[i].count)
			json_object_object_add(po, "store_lat", lat_to_json(&c->lat[i]));
		json_object_array_add(paths, po);
	}
	json_object_object_add(o, "paths", paths);
	json_object_object_add(o, "map", c->has_map ? stat_to_json(&c->map, 0, 0) : NULL);
	fio = json_object_new_object();
	json_object_object_add(fio, "jobs", json_object_new_int((int)c->fio_jobs));
	json_object_object_add(fio, "percentiles", json_object_new_string(
		c->fio_pct == SP_FIO_PCT_EXACT ? "exact" : "max-of-jobs"));
	json_object_object_add(fio, "error", json_object_new_int(c->fio.error));
	json_object_object_add(fio, "read", dir_to_json(&c->fio.dir[SP_FIO_READ]));
	json_object_object_add(fio, "write", dir_to_json(&c->fio.dir[SP_FIO_WRITE]));
	json_object_object_add(o, "fio", fio);
	{
		uint64_t ios[SP_CASE_MAX_PATHS];

		sp_case_path_ios(c, ios);
		sp_case_env_to_json(&c->env, ios, c->n_paths, o);
	}
	sp_case_faults_to_json(&c->faults, o);
	return o;
}

int sp_case_to_json(const struct sp_case_result *c, char **text)
{
	json_object *o = sp_case_json_object(c);
	const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
						       JSON_C_TO_STRING_SPACED);

	*text = s ? strdup(s) : NULL;
	json_object_put(o);
	return *text ? 0 : -ENOMEM;
}

/* ---- files ---- */

static int write_file(const char *path, const char *text)
{
	size_t len = strlen(text), done = 0;
	ssize_t n;
	int fd, err = 0;

	/* fresh, never through a planted link: fio reads the job back */
	fd = sp_outdir_create(path, 0644);
	if (fd < 0) {
		sp_err("%s: %s", path, fd == -ELOOP ? "is a symbolic link, "
		       "not written through" : strerror(-fd));
		return fd;
	}
	while (done < len) {
		n = write(fd, text + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			sp_err("%s: write: %s", path, strerror(errno));
			break;
		}
		done += (size_t)n;
	}
	if (close(fd) && !err) {
		err = -errno;
		sp_err("%s: close: %s", path, strerror(errno));
	}
	return err;
}

static int make_subdir(const char *dir, const char *sub, char *buf, size_t len)
{
	char err[SP_OUTDIR_ERRLEN];
	int ret = sp_outdir_check(dir, SP_OUTDIR_CREATE, err, sizeof(err));

	if (!ret)
		ret = sp_outdir_sub(dir, sub, buf, len, err, sizeof(err));
	if (ret)
		sp_err("%s", err);
	return ret;
}

int sp_case_save_raw(const char *dir, const struct sp_case_result *c,
		     const char *suffix, const char *text)
{
	char sub[4096], stem[256], path[4608];
	int ret = make_subdir(dir, "raw", sub, sizeof(sub));

	if (!ret)
		ret = sp_case_stem(c, stem, sizeof(stem));
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%s/%s.%s", sub, stem, suffix);
	return write_file(path, text);
}

int sp_case_save(const char *dir, const struct sp_case_result *c)
{
	char sub[4096], stem[256], path[4608], *text;
	int ret = make_subdir(dir, "cases", sub, sizeof(sub));

	if (!ret)
		ret = sp_case_stem(c, stem, sizeof(stem));
	if (!ret)
		ret = sp_case_to_json(c, &text);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%s/%s.json", sub, stem);
	ret = write_file(path, text);
	free(text);
	return ret;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int is_case_file(const struct dirent *e)
{
	size_t len = strlen(e->d_name);

	return e->d_name[0] != '.' && len > 5 &&
	       !strcmp(e->d_name + len - 5, ".json");
}

double sp_case_share_se(const struct sp_case_result *c, double *se)
{
	uint64_t ios[SP_CASE_MAX_PATHS];
	double worst = 0;
	size_t p;

	if (c->env.se_batches) {
		for (p = 0; p < c->n_paths && p < SP_ENV_MAX_PATHS; p++) {
			if (se)
				se[p] = c->env.se_batch[p];
			worst = c->env.se_batch[p] > worst ? c->env.se_batch[p]
							   : worst;
		}
		return worst;
	}
	sp_case_path_ios(c, ios);
	return sp_share_se(ios, c->n_paths, se);
}

uint64_t sp_case_path_ios(const struct sp_case_result *c, uint64_t *ios)
{
	uint64_t total = 0, io;
	size_t p;

	for (p = 0; p < c->n_paths && p < SP_CASE_MAX_PATHS; p++) {
		io = c->path[p].v[SP_DS_READS] + c->path[p].v[SP_DS_WRITES];
		if (ios)
			ios[p] = io;
		total += io;
	}
	return total;
}

int sp_case_timeline_read(const char *cases_dir, const struct sp_case_result *c,
			  struct sp_timeline *tl)
{
	char stem[256], path[4608], *text = NULL;
	int ret;

	memset(tl, 0, sizeof(*tl));
	if (!c->faults.timeline)
		return -ENOENT;
	ret = sp_case_stem(c, stem, sizeof(stem));
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%s/%s.timeline.tsv", cases_dir, stem);
	ret = sp_result_file_read(path, SP_FILE_TEXT_MAX, &text, NULL);
	if (ret) {
		sp_err("%s: %s", path, sp_result_file_why(ret));
		return ret;
	}
	ret = sp_tl_parse_tsv(text, path, tl);
	free(text);
	return ret;
}

/* The batch-means standard error from the case's timeline. A case is
 * worth reading without it: a missing or broken timeline leaves the
 * binomial one. */
static void read_batch_se(const char *sub, struct sp_case_result *c)
{
	double se[SP_TL_MAX_DEVS], worst;
	struct sp_timeline tl;
	size_t p, d;

	if (sp_case_timeline_read(sub, c, &tl))
		return;
	if (tl.n_devs > 1 &&
	    !sp_tl_share_se(&tl, tl.n_devs - 1, SP_ENV_SE_BATCHES, se, &worst)) {
		/* the timeline's paths by name: its order is its own */
		for (p = 0; p < c->n_paths && p < SP_ENV_MAX_PATHS; p++) {
			for (d = 0; d + 1 < tl.n_devs; d++)
				if (!strcmp(tl.dev[d], c->path[p].name))
					break;
			if (d + 1 == tl.n_devs)
				break;
			c->env.se_batch[p] = se[d];
		}
		if (p == c->n_paths)
			c->env.se_batches = SP_ENV_SE_BATCHES;
	}
	sp_tl_free(&tl);
}

int sp_case_load_dir(const char *dir, struct sp_case_result **cases,
		     size_t *n)
{
	char sub[4096], path[4608], *text;
	struct dirent **names;
	int count, i, ret = 0;

	*cases = NULL;
	*n = 0;
	snprintf(sub, sizeof(sub), "%s/cases", dir);
	count = scandir(sub, &names, is_case_file, by_name);
	if (count < 0) {
		ret = -errno;
		sp_err("%s: %s (not a slowpath run directory?)", sub, strerror(errno));
		return ret;
	}
	if (!count) {
		sp_err("%s: no case files", sub);
		free(names);
		return -ENOENT;
	}
	*cases = calloc((size_t)count, sizeof(**cases));
	if (!*cases)
		ret = -ENOMEM;
	for (i = 0; i < count; i++) {
		if (!ret) {
			snprintf(path, sizeof(path), "%s/%s", sub, names[i]->d_name);
			ret = sp_result_file_read(path, SP_FILE_TEXT_MAX, &text,
						  NULL);
			if (ret)
				sp_err("%s: %s", path, sp_result_file_why(ret));
			else {
				ret = sp_case_from_json(text, path, &(*cases)[*n]);
				free(text);
			}
			if (!ret)
				read_batch_se(sub, &(*cases)[*n]);
			if (!ret)
				(*n)++;
		}
		free(names[i]);
	}
	free(names);
	if (ret) {
		free(*cases);
		*cases = NULL;
		*n = 0;
	}
	return ret;
}
