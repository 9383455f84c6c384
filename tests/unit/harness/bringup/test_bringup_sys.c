/* The real make_file and free_bytes ops (bringup_sys.c) on temp files:
 * the backing file fio writes as root is a plain file of the right
 * size, never a symlink's target or a device. No root needed. */
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

#include "harness/bringup/bringup.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/sp-test-sys-XXXXXX");
	assert_non_null(mkdtemp(dir));
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) ? -1 : 0;
}

static int make(const char *path, uint64_t size, int *created)
{
	*created = -1;
	return sp_sys_real.make_file(sp_sys_real.ctx, path, size, created);
}

static void new_file_in_a_new_private_folder(void **state)
{
	char path[256], sub[128];
	struct stat st;
	int created;

	(void)state;
	snprintf(sub, sizeof(sub), "%s/lib", dir);
	snprintf(path, sizeof(path), "%s/t-3fa2.img", sub);
	assert_int_equal(make(path, 1 << 20, &created), 0);
	assert_int_equal(created, 1);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_size, 1 << 20);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(stat(sub, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	/* there now, big enough: used as it is */
	assert_int_equal(make(path, 1 << 20, &created), 0);
	assert_int_equal(created, 0);
	/* too small for the topology */
	assert_int_equal(make(path, 2 << 20, &created), -EFBIG);
	assert_int_equal(created, 0);
}

static void symlink_is_refused_and_its_target_untouched(void **state)
{
	char path[256], target[256];
	struct stat st;
	int created, fd;

	(void)state;
	snprintf(target, sizeof(target), "%s/precious", dir);
	snprintf(path, sizeof(path), "%s/t.img", dir);
	fd = open(target, O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "keep", 4), 4);
	close(fd);
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(make(path, 4, &created), -ELOOP);
	assert_int_equal(created, 0);
	assert_int_equal(make(path, 1 << 20, &created), -ELOOP);
	assert_int_equal(stat(target, &st), 0);
	assert_int_equal(st.st_size, 4);
	/* a dangling one is not created through, either */
	unlink(target);
	assert_int_equal(make(path, 4, &created), -ELOOP);
	assert_int_equal(stat(target, &st), -1);
}

static void devices_and_folders_are_refused(void **state)
{
	int created;

	(void)state;
	/* a character device stands in for backing_file=/dev/sdb */
	assert_int_equal(make("/dev/null", 0, &created), -EINVAL);
	assert_int_equal(created, 0);
	assert_int_equal(make(dir, 0, &created), -EINVAL);
}

static void free_bytes_of_a_path_not_there_yet(void **state)
{
	char path[256];
	uint64_t avail = 0;

	(void)state;
	snprintf(path, sizeof(path), "%s/no/such/folder/t.img", dir);
	assert_int_equal(sp_sys_real.free_bytes(sp_sys_real.ctx, path,
						&avail), 0);
	assert_true(avail > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(new_file_in_a_new_private_folder),
		T(symlink_is_refused_and_its_target_untouched),
		T(devices_and_folders_are_refused),
		T(free_bytes_of_a_path_not_there_yet),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
