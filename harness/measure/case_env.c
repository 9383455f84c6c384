/* The conditions a case ran under; see case_env.h. */
#include "harness/measure/case_env.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include <json-c/json.h>

int sp_cpustat_parse(const char *text, struct sp_cpustat *s)
{
	unsigned long long v[10] = { 0 };
	const char *line = text;
	int n, i;

	while (line && strncmp(line, "cpu ", 4)) {
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	if (!line)
		return -EINVAL;
	/* user nice system idle iowait irq softirq steal guest guest_nice;
	 * guest time is already counted in user */
	n = sscanf(line + 4, "%llu %llu %llu %llu %llu %llu %llu %llu",
		   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
	if (n < 4)
		return -EINVAL;
	s->total = 0;
	for (i = 0; i < n; i++)
		s->total += v[i];
	s->busy = s->total - v[3] - v[4];
	return 0;
}

double sp_cpustat_busy(const struct sp_cpustat *a, const struct sp_cpustat *b)
{
	if (b->total <= a->total || b->busy < a->busy)
		return -1;
	return (double)(b->busy - a->busy) / (double)(b->total - a->total);
}

int sp_resid_worst(const double *resid, const int *has, size_t n, double bound)
{
	double worst = bound;
	int at = -1;
	size_t i;

	for (i = 0; i < n; i++)
		if (has[i] && fabs(resid[i]) > worst) {
			worst = fabs(resid[i]);
			at = (int)i;
		}
	return at;
}

int sp_case_env_flagged(const struct sp_case_env *e, size_t n_paths,
			char *why, size_t len)
{
	int n = 0, saturated, worst, exact = !strcmp(e->time, "exact");
	/* on exact time a delay is what was injected: 1 %, not 3 % */
	double resid_max = exact ? SP_ENV_RESID_EXACT_MAX : SP_ENV_RESID_MAX;

	if (len)
		why[0] = '\0';
	if (!e->recorded)
		return 0;
	/* on exact time the testbed's CPU takes no time at all: however
	 * busy, it cannot have shaped a latency */
	saturated = e->cpu_util > SP_ENV_UTIL_MAX && !exact;
	if (saturated)
		n = snprintf(why, len, "lab saturated: CPU %.0f%% > %.0f%%",
			     100 * e->cpu_util, 100 * SP_ENV_UTIL_MAX);
	worst = sp_resid_worst(e->resid, e->has_resid, n_paths < SP_ENV_MAX_PATHS ?
			       n_paths : SP_ENV_MAX_PATHS, resid_max);
	if (worst >= 0 && n >= 0 && (size_t)n < len)
		snprintf(why + n, len - (size_t)n, "%scalibration off: path %d "
			 "%+.1f%% (bound +-%.0f%%)", n ? "; " : "", worst + 1,
			 100 * e->resid[worst], 100 * resid_max);
	return saturated || worst >= 0;
}

void sp_case_env_machine(const struct sp_case_env *e, char *buf, size_t len)
{
	const char *mode = e->mode[0] ? e->mode : "?";
	int n;

	if (!e->engine[0] || !strcmp(e->engine, "native"))
		n = snprintf(buf, len, "%s", mode);
	else if (!strcmp(e->time, "exact"))
		n = snprintf(buf, len, "%s %s, time exact: the testbed's own CPU "
			     "costs nothing", mode, e->engine);
	else
		n = snprintf(buf, len, "%s %s, time %s", mode, e->engine,
			     e->time[0] ? e->time : "?");
	if (e->patches[0] && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, ", patches %s", e->patches);
}

double sp_share_se(const uint64_t *ios, size_t n, double *se)
{
	uint64_t total = 0;
	double worst = 0, p, s;
	size_t i;

	for (i = 0; i < n; i++)
		total += ios[i];
	for (i = 0; i < n; i++) {
		p = total ? (double)ios[i] / (double)total : 0;
		s = total ? sqrt(p * (1 - p) / (double)total) : 0;
		if (se)
			se[i] = s;
		if (s > worst)
			worst = s;
	}
	return worst;
}

void sp_case_env_to_json(const struct sp_case_env *e, const uint64_t *ios,
			 size_t n_paths, json_object *o)
{
	json_object *env, *res;
	char why[256];
	size_t i;

	if (!e->recorded)
		return;
	env = json_object_new_object();
	json_object_object_add(env, "scale", json_object_new_int64((int64_t)e->scale));
	json_object_object_add(env, "cpu_util", e->cpu_util < 0 ? NULL :
			       json_object_new_double(e->cpu_util));
	json_object_object_add(env, "mode", json_object_new_string(e->mode));
	if (e->engine[0])
		json_object_object_add(env, "engine", json_object_new_string(e->engine));
	if (e->time[0])
		json_object_object_add(env, "time", json_object_new_string(e->time));
	if (e->patches[0])
		json_object_object_add(env, "patches", json_object_new_string(e->patches));
	json_object_object_add(env, "hst", json_object_new_string(e->hst));
	if (e->hst_build[0])
		json_object_object_add(env, "hst_build",
				       json_object_new_string(e->hst_build));
	if (!strcmp(e->hst_build, "5.8"))
		json_object_object_add(env, "hst_clock_skew_ns", e->has_hst_skew
				       ? json_object_new_int64(e->hst_skew_ns)
				       : NULL);
	json_object_object_add(env, "kernel", json_object_new_string(e->kernel));
	json_object_object_add(env, "warmup_s", json_object_new_int64(e->warmup_s));
	res = json_object_new_array();
	for (i = 0; i < n_paths && i < SP_ENV_MAX_PATHS; i++)
		json_object_array_add(res, e->has_resid[i] ?
				      json_object_new_double(e->resid[i]) : NULL);
	json_object_object_add(env, "calibration_residual", res);
	json_object_object_add(env, "share_se_max", json_object_new_double(
		sp_share_se(ios, n_paths, NULL)));
	json_object_object_add(env, "lab_shaped",
		sp_case_env_flagged(e, n_paths, why, sizeof(why)) ?
		json_object_new_string(why) : NULL);
	json_object_object_add(o, "environment", env);
}

static void str(json_object *env, const char *key, char *dst, size_t len)
{
	json_object *v;

	if (json_object_object_get_ex(env, key, &v) &&
	    json_object_is_type(v, json_type_string))
		snprintf(dst, len, "%s", json_object_get_string(v));
}

int sp_case_env_from_json(json_object *o, size_t n_paths,
			  struct sp_case_env *e)
{
	json_object *env, *v, *res;
	size_t i;

	memset(e, 0, sizeof(*e));
	e->cpu_util = -1;
	e->scale = 1;
	if (!json_object_object_get_ex(o, "environment", &env) || !env)
		return 0;
	if (!json_object_is_type(env, json_type_object))
		return -EINVAL;
	e->recorded = 1;
	if (json_object_object_get_ex(env, "scale", &v) &&
	    json_object_is_type(v, json_type_int) && json_object_get_int64(v) > 0)
		e->scale = (uint64_t)json_object_get_int64(v);
	if (json_object_object_get_ex(env, "cpu_util", &v) && v)
		e->cpu_util = json_object_get_double(v);
	str(env, "mode", e->mode, sizeof(e->mode));
	str(env, "engine", e->engine, sizeof(e->engine));
	str(env, "time", e->time, sizeof(e->time));
	str(env, "patches", e->patches, sizeof(e->patches));
	str(env, "hst", e->hst, sizeof(e->hst));
	str(env, "hst_build", e->hst_build, sizeof(e->hst_build));
	if (json_object_object_get_ex(env, "hst_clock_skew_ns", &v) &&
	    json_object_is_type(v, json_type_int)) {
		e->has_hst_skew = 1;
		e->hst_skew_ns = json_object_get_int64(v);
	}
	str(env, "kernel", e->kernel, sizeof(e->kernel));
	if (json_object_object_get_ex(env, "warmup_s", &v) &&
	    json_object_is_type(v, json_type_int) &&
	    json_object_get_int64(v) > 0 &&
	    json_object_get_int64(v) <= UINT_MAX)
		e->warmup_s = (unsigned int)json_object_get_int64(v);
	if (json_object_object_get_ex(env, "calibration_residual", &res) &&
	    json_object_is_type(res, json_type_array))
		for (i = 0; i < n_paths && i < SP_ENV_MAX_PATHS &&
			    i < json_object_array_length(res); i++) {
			v = json_object_array_get_idx(res, i);
			if (v) {
				e->has_resid[i] = 1;
				e->resid[i] = json_object_get_double(v);
			}
		}
	return 0;
}
