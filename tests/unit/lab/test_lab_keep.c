/* lab run --keep on uml: the guest's tree copied back (lab/lab_keep.c).
 * The tree is the guest's: links, FIFOs and what lies too deep are not
 * followed, and a setuid bit does not come back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lab/lab_keep.h"
#include "lab/lab_proc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void put(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(chmod(path, mode), 0);
}

static void copies_files_and_folders_only(void **state)
{
	char tmp[] = "/tmp/sp-keep-XXXXXX", src[PATH_MAX], dst[PATH_MAX];
	char p[PATH_MAX + 64], deep[PATH_MAX];
	struct sp_lab_keep_count n;
	struct stat st;
	int i;

	(void)state;
	assert_non_null(mkdtemp(tmp));
	snprintf(src, sizeof(src), "%s/src", tmp);
	snprintf(dst, sizeof(dst), "%s/dst", tmp);
	assert_int_equal(mkdir(src, 0755), 0);
	snprintf(p, sizeof(p), "%s/a.txt", src);
	put(p, "a\n", 0644);
	snprintf(p, sizeof(p), "%s/sub", src);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/sub/suid", src);
	put(p, "#!/bin/sh\n", 04755);
	snprintf(p, sizeof(p), "%s/link", src);
	assert_int_equal(symlink("/etc/passwd", p), 0);
	snprintf(p, sizeof(p), "%s/fifo", src);
	assert_int_equal(mkfifo(p, 0644), 0);
	snprintf(deep, sizeof(deep), "%s", src);
	for (i = 0; i <= SP_LAB_KEEP_DEPTH; i++) {
		strcat(deep, "/d");
		assert_int_equal(mkdir(deep, 0755), 0);
	}
	snprintf(p, sizeof(p), "%s/too-deep", deep);
	put(p, "x", 0644);

	assert_int_equal(sp_lab_keep_copy(src, dst, &n), 0);
	assert_int_equal(n.copied, 2);
	assert_int_equal(n.failed, 0);
	/* the link, the FIFO and the folder past the depth */
	assert_int_equal(n.skipped, 3);
	snprintf(p, sizeof(p), "%s/a.txt", dst);
	assert_int_equal(lstat(p, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	snprintf(p, sizeof(p), "%s/sub/suid", dst);
	assert_int_equal(lstat(p, &st), 0);
	assert_int_equal(st.st_mode & 07000, 0);
	snprintf(p, sizeof(p), "%s/link", dst);
	assert_int_equal(lstat(p, &st), -1);
	snprintf(p, sizeof(p), "%s/fifo", dst);
	assert_int_equal(lstat(p, &st), -1);
	/* a second copy onto the first: the earlier results stay */
	snprintf(p, sizeof(p), "%s/a.txt", dst);
	put(p, "earlier\n", 0644);
	assert_int_equal(sp_lab_keep_copy(src, dst, &n), 0);
	assert_int_equal(n.copied, 0);
	assert_int_equal(n.failed, 2);
	{
		FILE *f = fopen(p, "r");
		char line[32] = "";

		assert_non_null(f);
		assert_non_null(fgets(line, sizeof(line), f));
		fclose(f);
		assert_string_equal(line, "earlier\n");
	}
	assert_int_equal(sp_lab_keep_copy("/nonexistent/keep", dst, &n), -ENOENT);
	snprintf(p, sizeof(p), "rm -rf '%s'", tmp);
	assert_int_equal(system(p), 0);
}

/* What the guest leaves in its exchange folder (status, error) is read
 * by root: a link to a host file is not followed, a FIFO does not hang
 * the read (it did: open(2) waited for a writer). */
static void guest_answers_are_plain_files_only(void **state)
{
	char tmp[] = "/tmp/sp-xchg-XXXXXX", p[PATH_MAX + 16], *got;

	(void)state;
	assert_non_null(mkdtemp(tmp));
	snprintf(p, sizeof(p), "%s/status", tmp);
	put(p, "7\n", 0644);
	got = sp_lab_read_small(tmp, "status");
	assert_non_null(got);
	assert_string_equal(got, "7");
	free(got);
	assert_int_equal(unlink(p), 0);
	assert_int_equal(symlink("/etc/passwd", p), 0);
	assert_null(sp_lab_read_small(tmp, "status"));
	snprintf(p, sizeof(p), "%s/error", tmp);
	assert_int_equal(mkfifo(p, 0644), 0);
	assert_null(sp_lab_read_small(tmp, "error"));
	snprintf(p, sizeof(p), "rm -rf '%s'", tmp);
	assert_int_equal(system(p), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(guest_answers_are_plain_files_only),
		cmocka_unit_test(copies_files_and_folders_only),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
