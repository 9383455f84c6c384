/* Fuzz target: what crosses the running lab's virtio-serial port and
 * its run folder, both as hostile as the guest. Byte 0 even: a byte
 * stream through the frame decoder (sp_lab_dec_feed in chunks of
 * 1 + byte0/2 bytes, sp_lab_dec_next), each whole frame through the
 * decoder of its type as lab_ctl.c (host: FILE, EXIT, KEPT) and
 * lab_agent.c (guest: REQ, KEPT_ASK) use them, GONE as the uml
 * supervisor (lab_umlsup.c) and agent check it; what decodes must encode back to the same
 * payload (a request to the same strings). Odd: lab.info text
 * (sp_lab_info_parse), formatted and parsed back the same. */
#include "tests/fuzz/fuzz.h"

#include "lab/lab_ctl.h"
#include "lab/lab_frame.h"

#include <errno.h>

static int strv_equal(char *const *a, char *const *b)
{
	for (; *a && *b; a++, b++)
		if (strcmp(*a, *b))
			return 0;
	return !*a && !*b;
}

static void request(const unsigned char *p, size_t n)
{
	struct sp_lab_req r, back;
	unsigned char *enc;
	size_t len;

	if (sp_lab_req_decode(p, n, &r))
		return;
	if (!r.cwd || !r.argv || !r.argv[0] || !r.env || !r.sync)
		abort();
	if (sp_lab_req_encode(&r, &enc, &len) ||
	    sp_lab_req_decode(enc, len, &back) || back.rows != r.rows ||
	    back.cols != r.cols || strcmp(back.cwd, r.cwd) ||
	    !strv_equal(back.argv, r.argv) || !strv_equal(back.env, r.env) ||
	    !strv_equal(back.sync, r.sync))
		abort();
	free(enc);
	sp_lab_req_free(&back);
	sp_lab_req_free(&r);
}

static void file(const unsigned char *p, size_t n)
{
	unsigned char *enc;
	unsigned int root;
	uint32_t mode;
	char *rel;
	size_t len;

	if (sp_lab_file_decode(p, n, &root, &mode, &rel))
		return;
	if (!sp_lab_relpath_ok(rel) || rel[0] == '/' || mode & ~0777u ||
	    sp_lab_file_encode(root, mode, rel, &enc, &len) || len != n ||
	    memcmp(enc, p, n))
		abort();
	free(enc);
	free(rel);
}

/* kept results (lab fetch): what decodes is well formed and encodes
 * back to the same bytes */
static void kept_ask(const unsigned char *p, size_t n)
{
	unsigned char enc[5];
	uint32_t id;
	int op, len;

	if (sp_lab_kept_ask_decode(p, n, &op, &id))
		return;
	len = sp_lab_kept_ask_encode(op, id, enc);
	if (len < 0 || (size_t)len != n || memcmp(enc, p, n) ||
	    (op == SP_LAB_KEPT_DROP && !id))
		abort();
}

static void kept(const unsigned char *p, size_t n)
{
	struct sp_lab_kept k;
	unsigned char *enc;
	size_t len, i;

	if (sp_lab_kept_decode(p, n, &k))
		return;
	if (!k.id || !k.roots[0])
		abort();
	for (i = 0; k.roots[i]; i++)
		if (k.roots[i][0] != '/' || i >= SP_LAB_KEPT_MAX_ROOTS)
			abort();
	if (sp_lab_kept_encode(&k, &enc, &len) || len != n || memcmp(enc, p, n))
		abort();
	free(enc);
	sp_lab_kept_free(&k);
}

static void frame(int type, const unsigned char *p, size_t n)
{
	unsigned char enc[4];
	int code;

	switch (type) {
	case SP_LAB_F_REQ:
		request(p, n);
		break;
	case SP_LAB_F_FILE:
		file(p, n);
		break;
	case SP_LAB_F_KEPT_ASK:
		kept_ask(p, n);
		break;
	case SP_LAB_F_KEPT:
		kept(p, n);
		break;
	case SP_LAB_F_GONE:
		/* the uml supervisor and agent take only an empty one */
		if (sp_lab_frame_gone(type, n) != (n ? -EBADMSG : 1))
			abort();
		break;
	case SP_LAB_F_EXIT:
		if (!sp_lab_exit_decode(p, n, &code)) {
			sp_lab_exit_encode(code, enc);
			if (code < 0 || code > 255 || memcmp(enc, p, 4))
				abort();
		}
		break;
	}
}

static void stream(const uint8_t *data, size_t size, size_t chunk)
{
	struct sp_lab_dec d;
	const unsigned char *p;
	size_t off = 0, n, take;
	int type, ret = 0;

	sp_lab_dec_init(&d);
	while (off < size && ret >= 0) {
		take = size - off < chunk ? size - off : chunk;
		if (sp_lab_dec_feed(&d, data + off, take))
			break;
		off += take;
		while ((ret = sp_lab_dec_next(&d, &type, &p, &n)) == 1) {
			if (!sp_lab_frame_type_ok(type) || n > SP_LAB_FRAME_MAX)
				abort();
			frame(type, p, n);
		}
	}
	if (sp_lab_dec_pending(&d) > d.len)
		abort();
	sp_lab_dec_free(&d);
}

static void info(const uint8_t *data, size_t size)
{
	/* a key given twice keeps the last value: bytes past its NUL may
	 * differ, so the fields are compared, not the structs */
	static struct sp_lab_info in, back;
	static char buf[sizeof(in) + 256];
	char *text = fuzz_text(data, size);

	if (!text)
		return;
	if (!sp_lab_info_parse(text, &in) &&
	    (sp_lab_info_format(&in, buf, sizeof(buf)) ||
	     sp_lab_info_parse(buf, &back) || back.pid != in.pid ||
	     back.started != in.started || back.cpus != in.cpus ||
	     back.mem != in.mem || strcmp(back.kver, in.kver) ||
	     strcmp(back.console, in.console) || strcmp(back.engine, in.engine) ||
	     strcmp(back.time, in.time)))
		abort();
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (data[0] & 1)
		info(data + 1, size - 1);
	else
		stream(data + 1, size - 1, 1 + (size_t)(data[0] >> 1));
	return 0;
}
