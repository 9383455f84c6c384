/* The whole-file reader and the atomic writer, on files in a temp dir. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/file.h"

static char dir[] = "/tmp/sp-file-XXXXXX";

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[64];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) ? -1 : 0;
}

static void in_dir(char *path, size_t len, const char *name)
{
	snprintf(path, len, "%s/%s", dir, name);
}

static size_t entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static void the_whole_file_is_read(void **state)
{
	size_t big = 300 * 1024, len, i;
	char path[64], *data = malloc(big), *text;

	(void)state;
	assert_non_null(data);
	for (i = 0; i < big; i++)
		data[i] = (char)('a' + i % 26);
	in_dir(path, sizeof(path), "big");
	assert_int_equal(sp_file_write_atomic(path, data, big, 0600), 0);
	assert_int_equal(sp_file_read(path, big, &text, &len), 0);
	assert_int_equal(len, big);
	assert_memory_equal(text, data, big);
	assert_int_equal(text[big], '\0');
	free(text);
	assert_int_equal(sp_file_read(path, big - 1, &text, &len), -EFBIG);
	assert_null(text);
	assert_int_equal(sp_file_read(path, 10, &text, NULL), -EFBIG);
	free(data);
	unlink(path);
}

static void an_empty_file_is_an_empty_string(void **state)
{
	char path[64], *text;
	size_t len = 99;

	(void)state;
	in_dir(path, sizeof(path), "empty");
	assert_int_equal(sp_file_write_atomic(path, "", 0, 0644), 0);
	assert_int_equal(sp_file_read(path, 0, &text, &len), 0);
	assert_int_equal(len, 0);
	assert_string_equal(text, "");
	free(text);
	assert_int_equal(sp_file_read("/proc/self/stat", 1 << 20, &text, &len), 0);
	assert_true(len > 0);
	free(text);
	unlink(path);
}

static void nofollow_refuses_a_symlink(void **state)
{
	char path[64], link_[64], *text;

	(void)state;
	in_dir(path, sizeof(path), "target");
	in_dir(link_, sizeof(link_), "link");
	assert_int_equal(sp_file_write_atomic(path, "x\n", 2, 0644), 0);
	assert_int_equal(symlink(path, link_), 0);
	assert_int_equal(sp_file_read(link_, 100, &text, NULL), 0);
	assert_string_equal(text, "x\n");
	free(text);
	assert_int_equal(sp_file_read_opt(link_, 100, SP_FILE_NOFOLLOW, &text,
					  NULL), -ELOOP);
	assert_null(text);
	assert_int_equal(sp_file_read_opt(dir, 100, SP_FILE_REGULAR, &text,
					  NULL), -EINVAL);
	assert_int_equal(sp_file_read("/nonexistent/x", 100, &text, NULL),
			 -ENOENT);
	unlink(link_);
	unlink(path);
}

static void the_atomic_writer_replaces_with_mode_and_no_temp(void **state)
{
	char path[64], *text;
	struct stat st;
	mode_t old = umask(077);

	(void)state;
	in_dir(path, sizeof(path), "out");
	assert_int_equal(sp_file_write_atomic(path, "first\n", 6, 0600), 0);
	assert_int_equal(sp_file_write_atomic(path, "second\n", 7, 0644), 0);
	umask(old);
	assert_int_equal(sp_file_read(path, 100, &text, NULL), 0);
	assert_string_equal(text, "second\n");
	free(text);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	assert_int_equal(entries(), 1);
	/* a failed write leaves neither a temp file nor a changed target */
	assert_int_equal(sp_file_write_atomic("/nonexistent/dir/f", "x", 1, 0644),
			 -ENOENT);
	assert_int_equal(entries(), 1);
	unlink(path);
}

static void the_atomic_writer_does_not_follow_into_a_link_target(void **state)
{
	char path[64], target[64], *text;
	struct stat st;

	(void)state;
	in_dir(path, sizeof(path), "name");
	in_dir(target, sizeof(target), "elsewhere");
	assert_int_equal(sp_file_write_atomic(target, "keep\n", 5, 0644), 0);
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(sp_file_write_atomic(path, "new\n", 4, 0644), 0);
	/* the link itself was replaced; what it pointed at is untouched */
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(sp_file_read(target, 100, &text, NULL), 0);
	assert_string_equal(text, "keep\n");
	free(text);
	unlink(path);
	unlink(target);
}

static void a_prefix_is_read_only_when_asked_for(void **state)
{
	char path[64], buf[5];

	(void)state;
	in_dir(path, sizeof(path), "long");
	assert_int_equal(sp_file_write_atomic_opt(path, "abcdefgh", 8, 0644,
						  SP_FILE_NOSYNC), 0);
	assert_int_equal(sp_file_read_prefix(path, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "abcd");
	assert_int_equal(sp_file_read_prefix("/nonexistent/x", buf,
					     sizeof(buf)), -ENOENT);
	assert_string_equal(buf, "");
	assert_int_equal(entries(), 1);
	unlink(path);
}

static void noreplace_keeps_what_is_there(void **state)
{
	char path[64], *buf;
	size_t len;

	(void)state;
	in_dir(path, sizeof(path), "result");
	assert_int_equal(sp_file_write_atomic_opt(path, "old\n", 4, 0644,
						  SP_FILE_NOREPLACE), 0);
	assert_int_equal(sp_file_write_atomic_opt(path, "new\n", 4, 0644,
						  SP_FILE_NOREPLACE), -EEXIST);
	assert_int_equal(sp_file_read(path, 64, &buf, &len), 0);
	assert_string_equal(buf, "old\n");
	free(buf);
	/* no temp file left behind */
	assert_int_equal(entries(), 1);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_whole_file_is_read),
		cmocka_unit_test(an_empty_file_is_an_empty_string),
		cmocka_unit_test(nofollow_refuses_a_symlink),
		cmocka_unit_test(the_atomic_writer_replaces_with_mode_and_no_temp),
		cmocka_unit_test(the_atomic_writer_does_not_follow_into_a_link_target),
		cmocka_unit_test(a_prefix_is_read_only_when_asked_for),
		cmocka_unit_test(noreplace_keeps_what_is_there),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
