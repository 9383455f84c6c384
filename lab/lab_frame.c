/* The running lab's frames and request encoding: see lab_frame.h. */
#include "lab/lab_frame.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TAG_CWD = 'c', TAG_ARG = 'a', TAG_ENV = 'e', TAG_SYNC = 's' };

int sp_lab_frame_type_ok(int type)
{
	switch (type) {
	case SP_LAB_F_REQ: case SP_LAB_F_SIG: case SP_LAB_F_OUT:
	case SP_LAB_F_ERR: case SP_LAB_F_FILE: case SP_LAB_F_DATA:
	case SP_LAB_F_EXIT: case SP_LAB_F_KEPT_ASK: case SP_LAB_F_KEPT:
	case SP_LAB_F_GONE:
		return 1;
	}
	return 0;
}

int sp_lab_frame_gone(int type, size_t len)
{
	if (type != SP_LAB_F_GONE)
		return 0;
	return len ? -EBADMSG : 1;
}

static void put_u32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

static uint32_t get_u32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

int sp_lab_frame_header(int type, size_t len,
			unsigned char hdr[SP_LAB_FRAME_HDR])
{
	if (!sp_lab_frame_type_ok(type))
		return -EINVAL;
	if (len > SP_LAB_FRAME_MAX)
		return -EMSGSIZE;
	hdr[0] = 'S';
	hdr[1] = 'P';
	hdr[2] = (unsigned char)type;
	hdr[3] = 0;
	put_u32(hdr + 4, (uint32_t)len);
	return 0;
}

void sp_lab_dec_init(struct sp_lab_dec *d)
{
	memset(d, 0, sizeof(*d));
}

void sp_lab_dec_free(struct sp_lab_dec *d)
{
	free(d->buf);
	sp_lab_dec_init(d);
}

int sp_lab_dec_feed(struct sp_lab_dec *d, const void *data, size_t n)
{
	unsigned char *p;
	size_t cap;

	/* what the returned frames used is dropped before growing */
	d->last = 0;
	if (d->consumed) {
		memmove(d->buf, d->buf + d->consumed, d->len - d->consumed);
		d->len -= d->consumed;
		d->consumed = 0;
	}
	if (d->len + n > d->cap) {
		cap = d->cap ? d->cap : 4096;
		while (cap < d->len + n)
			cap *= 2;
		p = realloc(d->buf, cap);
		if (!p)
			return -ENOMEM;
		d->buf = p;
		d->cap = cap;
	}
	if (n)
		memcpy(d->buf + d->len, data, n);
	d->len += n;
	return 0;
}

int sp_lab_dec_next(struct sp_lab_dec *d, int *type,
		    const unsigned char **payload, size_t *len)
{
	const unsigned char *h = d->buf + d->consumed;
	size_t have = d->len - d->consumed;
	uint32_t n;

	if (have < SP_LAB_FRAME_HDR) {
		/* a bad magic is bad however few bytes came */
		if ((have >= 1 && h[0] != 'S') || (have >= 2 && h[1] != 'P'))
			return -EBADMSG;
		return 0;
	}
	if (h[0] != 'S' || h[1] != 'P' || h[3] != 0 ||
	    !sp_lab_frame_type_ok(h[2]))
		return -EBADMSG;
	n = get_u32(h + 4);
	if (n > SP_LAB_FRAME_MAX)
		return -EMSGSIZE;
	if (have < SP_LAB_FRAME_HDR + (size_t)n)
		return 0;
	*type = h[2];
	*payload = h + SP_LAB_FRAME_HDR;
	*len = n;
	d->consumed += SP_LAB_FRAME_HDR + n;
	d->last = SP_LAB_FRAME_HDR + n;
	return 1;
}

int sp_lab_dec_unget(struct sp_lab_dec *d)
{
	/* a feed since moved the bytes: last is cleared there */
	if (!d->last || d->last > d->consumed)
		return -EINVAL;
	d->consumed -= d->last;
	d->last = 0;
	return 0;
}

size_t sp_lab_dec_pending(const struct sp_lab_dec *d)
{
	return d->len - d->consumed;
}

static size_t strv_bytes(char *const *v, size_t *count)
{
	size_t n = 0;

	for (; v && *v; v++, (*count)++)
		n += strlen(*v) + 2;
	return n;
}

static unsigned char *put_item(unsigned char *p, int tag, const char *s)
{
	size_t n = strlen(s);

	*p++ = (unsigned char)tag;
	memcpy(p, s, n + 1);
	return p + n + 1;
}

int sp_lab_req_encode(const struct sp_lab_req *r, unsigned char **out,
		      size_t *len)
{
	size_t total = 4, items = 1;
	unsigned char *buf, *p;
	char *const *v;

	if (!r->cwd || r->cwd[0] != '/' || !r->argv || !r->argv[0])
		return -EINVAL;
	for (v = r->sync; v && *v; v++)
		if ((*v)[0] != '/')
			return -EINVAL;
	total += strlen(r->cwd) + 2;
	total += strv_bytes(r->argv, &items);
	total += strv_bytes(r->env, &items);
	total += strv_bytes(r->sync, &items);
	if (total > SP_LAB_FRAME_MAX || items > SP_LAB_REQ_MAX_ITEMS)
		return -EMSGSIZE;
	buf = malloc(total);
	if (!buf)
		return -ENOMEM;
	buf[0] = (unsigned char)(r->rows >> 8);
	buf[1] = (unsigned char)r->rows;
	buf[2] = (unsigned char)(r->cols >> 8);
	buf[3] = (unsigned char)r->cols;
	p = put_item(buf + 4, TAG_CWD, r->cwd);
	for (v = r->argv; *v; v++)
		p = put_item(p, TAG_ARG, *v);
	for (v = r->env; v && *v; v++)
		p = put_item(p, TAG_ENV, *v);
	for (v = r->sync; v && *v; v++)
		p = put_item(p, TAG_SYNC, *v);
	*out = buf;
	*len = (size_t)(p - buf);
	return 0;
}

void sp_lab_req_free(struct sp_lab_req *r)
{
	free(r->argv);
	free(r->env);
	free(r->sync);
	free(r->blob);
	memset(r, 0, sizeof(*r));
}

int sp_lab_req_decode(const unsigned char *p, size_t len,
		      struct sp_lab_req *r)
{
	size_t i, n_arg = 0, n_env = 0, n_sync = 0, n_cwd = 0, items = 0;
	char *s, *end;
	int tag;

	memset(r, 0, sizeof(*r));
	if (len < 4 || len > SP_LAB_FRAME_MAX)
		return -EBADMSG;
	/* count first: every item is TAG, bytes, NUL, within len */
	for (i = 4; i < len; items++) {
		const void *nul;

		if (i + 1 >= len || items >= SP_LAB_REQ_MAX_ITEMS)
			return -EBADMSG;
		nul = memchr(p + i + 1, '\0', len - i - 1);
		if (!nul)
			return -EBADMSG;
		switch (p[i]) {
		case TAG_CWD: n_cwd++; break;
		case TAG_ARG: n_arg++; break;
		case TAG_ENV: n_env++; break;
		case TAG_SYNC: n_sync++; break;
		default: return -EBADMSG;
		}
		i = (size_t)((const unsigned char *)nul - p) + 1;
	}
	if (n_cwd != 1 || n_arg == 0)
		return -EBADMSG;
	r->blob = malloc(len);
	r->argv = calloc(n_arg + 1, sizeof(char *));
	r->env = calloc(n_env + 1, sizeof(char *));
	r->sync = calloc(n_sync + 1, sizeof(char *));
	if (!r->blob || !r->argv || !r->env || !r->sync) {
		sp_lab_req_free(r);
		return -ENOMEM;
	}
	memcpy(r->blob, p, len);
	r->rows = (uint16_t)(p[0] << 8 | p[1]);
	r->cols = (uint16_t)(p[2] << 8 | p[3]);
	n_arg = n_env = n_sync = 0;
	for (s = r->blob + 4, end = r->blob + len; s < end; s += strlen(s) + 1) {
		tag = *s++;
		switch (tag) {
		case TAG_CWD: r->cwd = s; break;
		case TAG_ARG: r->argv[n_arg++] = s; break;
		case TAG_ENV:
			if (!strchr(s, '='))
				goto bad;
			r->env[n_env++] = s;
			break;
		case TAG_SYNC: r->sync[n_sync++] = s; break;
		}
		if ((tag == TAG_CWD || tag == TAG_SYNC) && s[0] != '/')
			goto bad;
	}
	return 0;
bad:
	sp_lab_req_free(r);
	return -EBADMSG;
}

static int component_ok(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || n > 255)
		return 0;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		int alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			    (c >= '0' && c <= '9');

		if (!alnum && (i == 0 || !strchr("._+-", c)))
			return 0;
	}
	return 1;
}

int sp_lab_relpath_ok(const char *path)
{
	const char *p = path, *slash;
	size_t parts = 0, n;

	if (!path || !*path || strlen(path) > 1024)
		return 0;
	for (;;) {
		slash = strchr(p, '/');
		n = slash ? (size_t)(slash - p) : strlen(p);
		if (!component_ok(p, n) || ++parts > 16)
			return 0;
		if (!slash)
			return 1;
		p = slash + 1;
	}
}

int sp_lab_file_encode(unsigned int root, uint32_t mode, const char *relpath,
		       unsigned char **out, size_t *len)
{
	size_t n;

	if (!sp_lab_relpath_ok(relpath) || root > 0xffff)
		return -EINVAL;
	n = strlen(relpath);
	*out = malloc(4 + n);
	if (!*out)
		return -ENOMEM;
	put_u32(*out, (uint32_t)root << 16 | (mode & 0777));
	memcpy(*out + 4, relpath, n);
	*len = 4 + n;
	return 0;
}

int sp_lab_file_decode(const unsigned char *p, size_t len,
		       unsigned int *root, uint32_t *mode, char **relpath)
{
	char *s;

	if (len < 5 || len > 4 + 1024 || memchr(p + 4, '\0', len - 4) ||
	    (get_u32(p) & 0xfe00u & 0xffffu))
		return -EBADMSG;
	s = strndup((const char *)p + 4, len - 4);
	if (!s)
		return -ENOMEM;
	if (!sp_lab_relpath_ok(s)) {
		free(s);
		return -EBADMSG;
	}
	*mode = get_u32(p) & 0777;
	*root = get_u32(p) >> 16;
	*relpath = s;
	return 0;
}

void sp_lab_exit_encode(int code, unsigned char out[4])
{
	put_u32(out, (uint32_t)(code & 0xff));
}

int sp_lab_exit_decode(const unsigned char *p, size_t len, int *code)
{
	uint32_t v;

	if (len != 4)
		return -EBADMSG;
	v = get_u32(p);
	if (v > 255)
		return -EBADMSG;
	*code = (int)v;
	return 0;
}

int sp_lab_kept_ask_encode(int op, uint32_t id, unsigned char out[5])
{
	out[0] = (unsigned char)op;
	if (op == SP_LAB_KEPT_LIST)
		return 1;
	if (op != SP_LAB_KEPT_DROP || !id)
		return -EINVAL;
	put_u32(out + 1, id);
	return 5;
}

int sp_lab_kept_ask_decode(const unsigned char *p, size_t len, int *op,
			   uint32_t *id)
{
	if (len == 1 && p[0] == SP_LAB_KEPT_LIST) {
		*op = SP_LAB_KEPT_LIST;
		*id = 0;
		return 0;
	}
	if (len != 5 || p[0] != SP_LAB_KEPT_DROP || !get_u32(p + 1))
		return -EBADMSG;
	*op = SP_LAB_KEPT_DROP;
	*id = get_u32(p + 1);
	return 0;
}

static void put_u64(unsigned char *p, uint64_t v)
{
	put_u32(p, (uint32_t)(v >> 32));
	put_u32(p + 4, (uint32_t)v);
}

static int kept_root_ok(const char *s, size_t n)
{
	return n > 1 && n < PATH_MAX && s[0] == '/';
}

int sp_lab_kept_encode(const struct sp_lab_kept *k, unsigned char **out,
		       size_t *len)
{
	size_t i, total = 12;
	unsigned char *p;

	if (!k->id || !k->roots[0])
		return -EINVAL;
	for (i = 0; k->roots[i]; i++) {
		if (i >= SP_LAB_KEPT_MAX_ROOTS ||
		    !kept_root_ok(k->roots[i], strlen(k->roots[i])))
			return -EINVAL;
		total += strlen(k->roots[i]) + 1;
	}
	p = malloc(total);
	if (!p)
		return -ENOMEM;
	put_u32(p, k->id);
	put_u64(p + 4, (uint64_t)k->started);
	*out = p;
	*len = total;
	for (p += 12, i = 0; k->roots[i]; i++)
		p = (unsigned char *)stpcpy((char *)p, k->roots[i]) + 1;
	return 0;
}

void sp_lab_kept_free(struct sp_lab_kept *k)
{
	free(k->blob);
	memset(k, 0, sizeof(*k));
}

int sp_lab_kept_decode(const unsigned char *p, size_t len,
		       struct sp_lab_kept *k)
{
	size_t off, n, i = 0;

	memset(k, 0, sizeof(*k));
	if (len < 14 || len > SP_LAB_FRAME_MAX || !get_u32(p) ||
	    p[len - 1] != '\0')
		return -EBADMSG;
	k->blob = malloc(len - 12);
	if (!k->blob)
		return -ENOMEM;
	memcpy(k->blob, p + 12, len - 12);
	for (off = 0; off < len - 12; off += n + 1) {
		n = strlen(k->blob + off);
		if (i >= SP_LAB_KEPT_MAX_ROOTS || !kept_root_ok(k->blob + off, n)) {
			sp_lab_kept_free(k);
			return -EBADMSG;
		}
		k->roots[i++] = k->blob + off;
	}
	k->id = get_u32(p);
	k->started = (int64_t)((uint64_t)get_u32(p + 4) << 32 | get_u32(p + 8));
	return 0;
}

void sp_lab_kept_name(const char *root, unsigned int n, char *out, size_t len)
{
	const char *base = strrchr(root, '/');

	base = base ? base + 1 : root;
	if (!*base || strchr(base, '/') || !sp_lab_relpath_ok(base) ||
	    strlen(base) > 200)
		base = "root";
	if (n > 1)
		snprintf(out, len, "%s-%u", base, n);
	else
		snprintf(out, len, "%s", base);
}
