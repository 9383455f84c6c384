/* The "faults" part of a case's JSON. */
#include "harness/measure/case_faults.h"

#include "common/log.h"
#include "common/name.h"

#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

int sp_case_faults_add(struct sp_case_faults *f, int64_t t_ms,
		       const char *path, const char *dev, const char *how,
		       enum sp_tl_event_kind kind)
{
	struct sp_tl_event *e;

	if (f->n_events >= SP_TL_MAX_EVENTS)
		return -ENOSPC;
	e = &f->ev[f->n_events++];
	memset(e, 0, sizeof(*e));
	e->t_ms = t_ms;
	snprintf(e->path, sizeof(e->path), "%s", path);
	snprintf(e->dev, sizeof(e->dev), "%s", dev);
	snprintf(e->how, sizeof(e->how), "%s", how);
	e->kind = kind;
	f->recorded = 1;
	return 0;
}

uint64_t sp_case_faults_io_errors(const struct sp_case_faults *f)
{
	return f->fio_errors > f->verify_errors ?
	       f->fio_errors - f->verify_errors : 0;
}

void sp_case_faults_to_json(const struct sp_case_faults *f,
			    json_object *o)
{
	json_object *fo, *a, *e;
	size_t i;

	if (!f->recorded)
		return;
	fo = json_object_new_object();
	json_object_object_add(fo, "verify", json_object_new_boolean(f->verify));
	json_object_object_add(fo, "errors_counted",
			       json_object_new_boolean(f->counted));
	json_object_object_add(fo, "fio_errors",
			       json_object_new_int64((int64_t)f->fio_errors));
	json_object_object_add(fo, "first_error",
			       json_object_new_int(f->first_error));
	json_object_object_add(fo, "verify_errors",
			       json_object_new_int64((int64_t)f->verify_errors));
	json_object_object_add(fo, "timeline",
			       json_object_new_boolean(f->timeline));
	a = json_object_new_array();
	for (i = 0; i < f->n_events; i++) {
		const struct sp_tl_event *ev = &f->ev[i];

		e = json_object_new_object();
		json_object_object_add(e, "t_ms", json_object_new_int64(ev->t_ms));
		json_object_object_add(e, "took_ms",
				       json_object_new_int64(ev->took_ms));
		json_object_object_add(e, "path", json_object_new_string(ev->path));
		json_object_object_add(e, "dev", json_object_new_string(ev->dev));
		json_object_object_add(e, "how", json_object_new_string(ev->how));
		json_object_object_add(e, "event", json_object_new_string(
			sp_tl_event_kind_name(ev->kind)));
		json_object_array_add(a, e);
	}
	json_object_object_add(fo, "events", a);
	json_object_object_add(o, "faults", fo);
}

static int bad(const char *origin, const char *key, const char *why)
{
	sp_err("%s: faults: \"%s\" %s", origin, key, why);
	return -EINVAL;
}

static int get_int(json_object *o, const char *origin, const char *key,
		   int64_t min, int64_t max, int64_t *v)
{
	json_object *x;

	if (!json_object_object_get_ex(o, key, &x) ||
	    !json_object_is_type(x, json_type_int))
		return bad(origin, key, "is missing or not an int");
	*v = json_object_get_int64(x);
	if (*v < min || *v > max) {
		/* the value as the file has it: json-c clamps past int64 */
		sp_err("%s: faults: \"%s\" is %s, out of range %" PRId64 "..%"
		       PRId64, origin, key, json_object_to_json_string(x), min,
		       max);
		return -EINVAL;
	}
	return 0;
}

static int get_bool(json_object *o, const char *origin, const char *key,
		    int *v)
{
	json_object *x;

	if (!json_object_object_get_ex(o, key, &x) ||
	    !json_object_is_type(x, json_type_boolean))
		return bad(origin, key, "is missing or not a boolean");
	*v = json_object_get_boolean(x);
	return 0;
}

static int get_name(json_object *o, const char *origin, const char *key,
		    char *dst, size_t len)
{
	json_object *x;
	const char *s;

	if (!json_object_object_get_ex(o, key, &x) ||
	    !json_object_is_type(x, json_type_string))
		return bad(origin, key, "is missing or not a string");
	s = json_object_get_string(x);
	if (strlen(s) >= len || !sp_name_ok(s))
		return bad(origin, key, "is not a name slowpath uses ("
			   SP_NAME_RULE ")");
	strcpy(dst, s);
	return 0;
}

static int event_from_json(json_object *e, const char *origin,
			   struct sp_tl_event *ev)
{
	char kind[16];
	int k, ret;

	if (!json_object_is_type(e, json_type_object))
		return bad(origin, "events", "holds something not an object");
	/* bounded so the metrics may add them (t_ms + took_ms) */
	ret = get_int(e, origin, "t_ms", 0, SP_TL_MS_MAX, &ev->t_ms);
	/* took_ms came later: a file without it took no time */
	if (!ret && json_object_object_get_ex(e, "took_ms", NULL))
		ret = get_int(e, origin, "took_ms", 0, SP_TL_MS_MAX, &ev->took_ms);
	if (!ret)
		ret = get_name(e, origin, "path", ev->path, sizeof(ev->path));
	if (!ret)
		ret = get_name(e, origin, "dev", ev->dev, sizeof(ev->dev));
	if (!ret)
		ret = get_name(e, origin, "how", ev->how, sizeof(ev->how));
	if (!ret)
		ret = get_name(e, origin, "event", kind, sizeof(kind));
	if (ret)
		return ret;
	k = sp_tl_event_kind_by_name(kind);
	if (k < 0)
		return bad(origin, "event", "is not applied, restored or failed");
	ev->kind = (enum sp_tl_event_kind)k;
	return 0;
}

int sp_case_faults_from_json(json_object *o, const char *origin,
			     struct sp_case_faults *f)
{
	json_object *fo, *a;
	int64_t v = 0;
	size_t i;
	int ret;

	memset(f, 0, sizeof(*f));
	if (!json_object_object_get_ex(o, "faults", &fo) || !fo)
		return 0;
	if (!json_object_is_type(fo, json_type_object))
		return bad(origin, "faults", "is not an object");
	f->recorded = 1;
	ret = get_bool(fo, origin, "verify", &f->verify);
	if (!ret)
		ret = get_bool(fo, origin, "errors_counted", &f->counted);
	if (!ret)
		ret = get_bool(fo, origin, "timeline", &f->timeline);
	if (!ret)
		ret = get_int(fo, origin, "fio_errors", 0, INT64_MAX, &v);
	f->fio_errors = (uint64_t)v;
	if (!ret)
		ret = get_int(fo, origin, "first_error", 0, 4095, &v);
	f->first_error = (int)v;
	if (!ret)
		ret = get_int(fo, origin, "verify_errors", 0, INT64_MAX, &v);
	f->verify_errors = (uint64_t)v;
	if (ret)
		return ret;
	if (!json_object_object_get_ex(fo, "events", &a) ||
	    !json_object_is_type(a, json_type_array))
		return bad(origin, "events", "is missing or not an array");
	if (json_object_array_length(a) > SP_TL_MAX_EVENTS)
		return bad(origin, "events", "has too many entries");
	for (i = 0; i < json_object_array_length(a); i++) {
		ret = event_from_json(json_object_array_get_idx(a, i), origin,
				      &f->ev[i]);
		if (ret)
			return ret;
		f->n_events++;
	}
	return 0;
}
