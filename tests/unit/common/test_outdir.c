/* Output folders root writes into (common/outdir): only ones nobody
 * else could have planted anything in, and fresh files in them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/outdir.h"

static char dir[64], err[SP_OUTDIR_ERRLEN];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/sp-test-outdir-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) ? -1 : 0;
}

static void ours_and_private_is_accepted(void **state)
{
	char path[256], sub[256];
	struct stat st;

	(void)state;
	assert_int_equal(sp_outdir_check(dir, SP_OUTDIR_EMPTY, err,
					 sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/a/b/c", dir);
	assert_int_equal(sp_outdir_check(path, SP_OUTDIR_CREATE |
					 SP_OUTDIR_EMPTY, err, sizeof(err)), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(sp_outdir_sub(path, "cases", sub, sizeof(sub), err,
				       sizeof(err)), 0);
	assert_int_equal(sp_outdir_check(path, SP_OUTDIR_EMPTY, err,
					 sizeof(err)), -EEXIST);
	assert_non_null(strstr(err, "not empty"));
}

static void planted_or_shared_folders_are_refused(void **state)
{
	char path[256], link[256];

	(void)state;
	snprintf(path, sizeof(path), "%s/open", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(chmod(path, 0777), 0);
	assert_int_equal(sp_outdir_check(path, 0, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "0777"));
	assert_int_equal(chmod(path, 0775), 0);
	assert_int_equal(sp_outdir_check(path, 0, err, sizeof(err)), -EPERM);
	assert_int_equal(chmod(path, 0755), 0);
	assert_int_equal(sp_outdir_check(path, 0, err, sizeof(err)), 0);

	snprintf(link, sizeof(link), "%s/link", dir);
	assert_int_equal(symlink(path, link), 0);
	assert_int_equal(sp_outdir_check(link, SP_OUTDIR_CREATE, err,
					 sizeof(err)), -ELOOP);
	assert_non_null(strstr(err, "symbolic link"));
	assert_non_null(strstr(err, link));

	snprintf(path, sizeof(path), "%s/file", dir);
	close(open(path, O_CREAT | O_WRONLY, 0600));
	assert_int_equal(sp_outdir_check(path, 0, err, sizeof(err)), -ENOTDIR);

	/* owned by someone else: only root can make one to test with */
	if (geteuid() == 0) {
		snprintf(path, sizeof(path), "%s/theirs", dir);
		assert_int_equal(mkdir(path, 0755), 0);
		assert_int_equal(chown(path, 65534, 65534), 0);
		assert_int_equal(sp_outdir_check(path, 0, err, sizeof(err)),
				 -EPERM);
		assert_non_null(strstr(err, "uid 65534"));
	}
}

static void files_are_fresh_and_never_followed(void **state)
{
	char path[256], target[256], buf[16] = "";
	struct stat st;
	FILE *f;
	int fd;

	(void)state;
	snprintf(target, sizeof(target), "%s/precious", dir);
	snprintf(path, sizeof(path), "%s/job", dir);
	fd = open(target, O_CREAT | O_WRONLY, 0600);
	assert_int_equal(write(fd, "keep", 4), 4);
	close(fd);
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(sp_outdir_create(path, 0644), -ELOOP);
	assert_null(sp_outdir_fopen(path));
	assert_int_equal(errno, ELOOP);
	fd = open(target, O_RDONLY);
	assert_int_equal(read(fd, buf, sizeof(buf)), 4);
	close(fd);
	assert_string_equal(buf, "keep");

	/* an old regular file is replaced by a new inode of exactly mode */
	unlink(path);
	assert_int_equal(link(target, path), 0);
	umask(077);
	assert_non_null(f = sp_outdir_fopen(path));
	fputs("new\n", f);
	fclose(f);
	umask(022);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	assert_int_equal(st.st_nlink, 1);
	assert_int_equal(stat(target, &st), 0);
	assert_int_equal(st.st_size, 4);
	assert_int_equal(sp_outdir_create(dir, 0644), -EISDIR);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(ours_and_private_is_accepted),
		T(planted_or_shared_folders_are_refused),
		T(files_are_fresh_and_never_followed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
