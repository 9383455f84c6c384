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

/* issue 23 item 13: not only the last part. A link or a folder on the
 * way that someone else controls could send root's writes elsewhere. */
static void every_part_of_the_path_is_checked(void **state)
{
	char real[128], path[256], link[128], out[256];
	struct stat st;

	(void)state;
	if (geteuid() != 0)
		skip();	/* other owners: only root can make them */
	snprintf(real, sizeof(real), "%s/real", dir);
	assert_int_equal(mkdir(real, 0755), 0);
	/* a user's link as a parent: refused, nothing made behind it */
	snprintf(link, sizeof(link), "%s/results", dir);
	assert_int_equal(symlink("real", link), 0);
	assert_int_equal(lchown(link, 65534, 65534), 0);
	snprintf(path, sizeof(path), "%s/run1", link);
	assert_int_equal(sp_outdir_check(path, SP_OUTDIR_CREATE, err,
					 sizeof(err)), -ELOOP);
	assert_non_null(strstr(err, "uid 65534"));
	snprintf(out, sizeof(out), "%s/run1", real);
	assert_int_equal(lstat(out, &st), -1);
	snprintf(path, sizeof(path), "%s/a/b", link);
	assert_int_equal(sp_outdir_check(path, SP_OUTDIR_CREATE, err,
					 sizeof(err)), -ELOOP);
	/* relative to a cwd, too */
	assert_int_equal(chdir(dir), 0);
	assert_int_equal(sp_outdir_check("results/run1", SP_OUTDIR_CREATE, err,
					 sizeof(err)), -ELOOP);
	/* root's own link is root's choice (/var/run -> /run) */
	assert_int_equal(lchown(link, 0, 0), 0);
	assert_int_equal(sp_outdir_check("results/run1", SP_OUTDIR_CREATE, err,
					 sizeof(err)), 0);
	assert_int_equal(chdir("/"), 0);
	assert_int_equal(lstat(out, &st), 0);
	/* a folder on the way someone else owns, or anyone may write */
	assert_int_equal(chown(real, 65534, 65534), 0);
	assert_int_equal(sp_outdir_check(out, 0, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "on the way"));
	snprintf(path, sizeof(path), "%s/run1", link);
	assert_int_equal(sp_outdir_check(path, 0, err, sizeof(err)), -EPERM);
	assert_int_equal(chown(real, 0, 0), 0);
	assert_int_equal(chmod(real, 0777), 0);
	assert_int_equal(sp_outdir_check(out, 0, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "0777"));
	/* sticky, like /tmp: nobody may rename what root owns there */
	assert_int_equal(chmod(real, 01777), 0);
	assert_int_equal(sp_outdir_check(out, 0, err, sizeof(err)), 0);
	assert_int_equal(sp_outdir_check("/tmp", 0, err, sizeof(err)), -EPERM);
	assert_int_equal(chmod(real, 0755), 0);
	assert_int_equal(sp_outdir_check(out, 0, err, sizeof(err)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(ours_and_private_is_accepted),
		T(planted_or_shared_folders_are_refused),
		T(files_are_fresh_and_never_followed),
		T(every_part_of_the_path_is_checked),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
