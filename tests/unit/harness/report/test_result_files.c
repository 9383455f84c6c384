/* Unit tests of reading a result folder back (issue 23 item 12): what
 * `slowpath report DIR` and `reproduce --report-only` read there (case
 * JSON, timelines) is read only as regular files of their own. A
 * symlink to a root-only file is not followed, and no message shows a
 * byte of it; a FIFO does not hang the read; a hard link, a symlinked
 * cases/ folder and an oversized file are refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/file.h"
#include "common/log.h"
#include "harness/measure/case_result.h"
#include "harness/measure/result_file.h"
#include "harness/report/render_timeline.h"

#define SECRET "TOPSECRET-0123456789"

/* Every message logged, so none may show the secret. */
static char logged[8192];

static void keep_all(enum sp_log_level level, const char *msg, void *ctx)
{
	size_t used = strlen(logged);

	(void)ctx;
	if (level <= SP_LOG_WARN)
		snprintf(logged + used, sizeof(logged) - used, "%s\n", msg);
}

static void log_start(void)
{
	logged[0] = '\0';
	sp_log_set_hook(keep_all, NULL);
}

/* A read that blocks on a FIFO fails the test instead of hanging it. */
static void on_alarm(int sig)
{
	static const char msg[] = "test_result_files: a read blocked on a FIFO\n";

	(void)sig;
	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(2);
	_exit(1);
}

static char run_dir[64], secret_path[128], tl_path[256], case_path[256];

static void make_case(struct sp_case_result *c)
{
	memset(c, 0, sizeof(*c));
	strcpy(c->topology, "two");
	strcpy(c->selector, "service-time");
	strcpy(c->rw, "randread");
	c->bs = 4096;
	c->iodepth = 1;
	c->numjobs = 1;
	c->n_paths = 2;
	strcpy(c->path[0].name, "sda");
	strcpy(c->path[1].name, "sdb");
	c->path[0].v[SP_DS_READS] = c->path[1].v[SP_DS_READS] = 50;
	c->path[0].n_fields = c->path[1].n_fields = 11;
	c->faults.recorded = 1;
	c->faults.timeline = 1;
}

static int setup(void **state)
{
	struct sp_case_result c;
	char stem[128];
	int fd;

	(void)state;
	signal(SIGALRM, on_alarm);
	snprintf(run_dir, sizeof(run_dir), "/tmp/test_result_files.XXXXXX");
	assert_non_null(mkdtemp(run_dir));
	/* a file only root may read, outside the result folder */
	snprintf(secret_path, sizeof(secret_path), "%s/secret", run_dir);
	fd = open(secret_path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, SECRET "\n", sizeof(SECRET)), sizeof(SECRET));
	close(fd);
	make_case(&c);
	assert_int_equal(sp_case_save(run_dir, &c), 0);
	assert_int_equal(sp_case_stem(&c, stem, sizeof(stem)), 0);
	snprintf(tl_path, sizeof(tl_path), "%s/cases/%s.timeline.tsv", run_dir,
		 stem);
	snprintf(case_path, sizeof(case_path), "%s/cases/%s.json", run_dir, stem);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	sp_log_set_hook(NULL, NULL);
	alarm(0);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", run_dir);
	assert_int_equal(system(cmd), 0);
	return 0;
}

/* report DIR: load the cases, then their timelines' tables. */
static int report(int *render_ret)
{
	struct sp_case_result *cases = NULL;
	size_t n = 0, shown = 0;
	int ret;

	alarm(20);
	ret = sp_case_load_dir(run_dir, &cases, &n);
	*render_ret = ret ? ret : sp_render_timelines(NULL, run_dir, cases, n,
						      NULL, NULL, &shown);
	alarm(0);
	free(cases);
	return ret;
}

static void symlinked_timeline_not_followed(void **state)
{
	int render_ret;

	(void)state;
	assert_int_equal(symlink(secret_path, tl_path), 0);
	log_start();
	/* the case loads (a timeline only narrows its standard error) */
	assert_int_equal(report(&render_ret), 0);
	assert_int_equal(render_ret, -ELOOP);
	assert_null(strstr(logged, "TOPSECRET"));
	assert_non_null(strstr(logged, tl_path));
	assert_non_null(strstr(logged, "symbolic link"));
}

static void fifo_timeline_does_not_hang(void **state)
{
	int render_ret;

	(void)state;
	assert_int_equal(mkfifo(tl_path, 0600), 0);
	log_start();
	assert_int_equal(report(&render_ret), 0);
	assert_int_equal(render_ret, -EINVAL);
	assert_non_null(strstr(logged, "not a regular file"));
}

static void hardlinked_timeline_refused(void **state)
{
	int render_ret;

	(void)state;
	assert_int_equal(link(secret_path, tl_path), 0);
	log_start();
	assert_int_equal(report(&render_ret), 0);
	assert_int_equal(render_ret, -EMLINK);
	assert_null(strstr(logged, "TOPSECRET"));
}

static void case_json_symlink_and_fifo_refused(void **state)
{
	int render_ret;

	(void)state;
	assert_int_equal(unlink(case_path), 0);
	assert_int_equal(symlink(secret_path, case_path), 0);
	log_start();
	assert_int_equal(report(&render_ret), -ELOOP);
	assert_null(strstr(logged, "TOPSECRET"));
	assert_non_null(strstr(logged, case_path));

	assert_int_equal(unlink(case_path), 0);
	assert_int_equal(mkfifo(case_path, 0600), 0);
	log_start();
	assert_int_equal(report(&render_ret), -EINVAL);
	assert_non_null(strstr(logged, "not a regular file"));
}

/* A cases/ folder that is a symlink: its files are not read. */
static void symlinked_cases_folder_refused(void **state)
{
	char cases[128], moved[128];
	int render_ret;

	(void)state;
	snprintf(cases, sizeof(cases), "%s/cases", run_dir);
	snprintf(moved, sizeof(moved), "%s/elsewhere", run_dir);
	assert_int_equal(rename(cases, moved), 0);
	assert_int_equal(symlink(moved, cases), 0);
	log_start();
	assert_int_equal(report(&render_ret), -ELOOP);
	assert_non_null(strstr(logged, "symbolic link"));
}

static void oversized_and_direct_reads(void **state)
{
	char *text = NULL, path[128];
	size_t len = 0;
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "%s/big", run_dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 4097), 0);
	close(fd);
	assert_int_equal(sp_result_file_read(path, 4096, &text, &len), -EFBIG);
	assert_null(text);
	assert_int_equal(sp_result_file_read(secret_path, 4096, &text, &len), 0);
	assert_int_equal(len, sizeof(SECRET));
	assert_string_equal(text, SECRET "\n");
	free(text);
	snprintf(path, sizeof(path), "%s/none", run_dir);
	assert_int_equal(sp_result_file_read(path, 4096, &text, &len), -ENOENT);
	assert_int_equal(sp_result_file_read(run_dir, 4096, &text, &len), -EINVAL);
	assert_null(strstr(sp_result_file_why(-ELOOP), "TOPSECRET"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(symlinked_timeline_not_followed,
						setup, teardown),
		cmocka_unit_test_setup_teardown(fifo_timeline_does_not_hang,
						setup, teardown),
		cmocka_unit_test_setup_teardown(hardlinked_timeline_refused,
						setup, teardown),
		cmocka_unit_test_setup_teardown(case_json_symlink_and_fifo_refused,
						setup, teardown),
		cmocka_unit_test_setup_teardown(symlinked_cases_folder_refused,
						setup, teardown),
		cmocka_unit_test_setup_teardown(oversized_and_direct_reads,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
