/* The agent's store of kept results (lab/lab_kept.c) on real folders:
 * what a kept result holds is its window's files only (not an earlier
 * run's, not a later command's), a folder with none keeps nothing, LIST
 * sends a KEPT frame and the files, DROP forgets one result, and a
 * malformed ask is refused. The port is a pipe. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lab/lab_agent.h"
#include "lab/lab_frame.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char base[64];

static void put(const char *rel, const char *text, time_t mtime)
{
	char path[PATH_MAX];
	struct timespec ts[2] = { { mtime, 0 }, { mtime, 0 } };
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", base, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
}

static int setup(void **state)
{
	char path[PATH_MAX];

	(void)state;
	snprintf(base, sizeof(base), "/tmp/test_lab_kept.XXXXXX");
	assert_non_null(mkdtemp(base));
	snprintf(path, sizeof(path), "%s/r1", base);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/r1/cases", base);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/old", base);
	assert_int_equal(mkdir(path, 0755), 0);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	return system(cmd) ? -1 : 0;
}

/* The frames in the pipe, as "TYPE:what" words. */
static void read_frames(int fd, char *out, size_t len)
{
	unsigned char buf[65536];
	const unsigned char *p;
	struct sp_lab_dec d;
	ssize_t r = read(fd, buf, sizeof(buf));
	size_t n, used = 0;
	int type;

	out[0] = '\0';
	sp_lab_dec_init(&d);
	assert_true(r > 0);
	assert_int_equal(sp_lab_dec_feed(&d, buf, (size_t)r), 0);
	while (sp_lab_dec_next(&d, &type, &p, &n) == 1) {
		char what[256] = "";

		if (type == SP_LAB_F_FILE)
			snprintf(what, sizeof(what), "%.*s", (int)(n - 4), p + 4);
		else if (type == SP_LAB_F_DATA)
			snprintf(what, sizeof(what), "%.*s", (int)n, p);
		else if (type == SP_LAB_F_EXIT)
			snprintf(what, sizeof(what), "%d", p[3]);
		used += (size_t)snprintf(out + used, len - used, "%c:%s ", type, what);
	}
	assert_int_equal(sp_lab_dec_pending(&d), 0);
	sp_lab_dec_free(&d);
}

static void test_window_list_drop(void **state)
{
	time_t now = time(NULL);
	struct timespec since = { now - 60, 0 }, until = { now + 60, 0 };
	char root[PATH_MAX], old[PATH_MAX], frames[1024];
	char *roots[] = { root, old, NULL };
	unsigned char ask[5];
	unsigned int commands;
	int pipefd[2];

	(void)state;
	snprintf(root, sizeof(root), "%s/r1", base);
	snprintf(old, sizeof(old), "%s/old", base);
	put("r1/cases/a.json", "A", now);
	put("r1/early.txt", "E", now - 3600);		/* before the command */
	put("r1/cases/later.json", "L", now + 3600);	/* a later command's */
	put("old/x.json", "X", now - 3600);		/* nothing in the window */
	/* a folder with nothing of the window keeps nothing */
	sp_lab_kept_keep(roots + 1, &since, &until);
	assert_int_equal(sp_lab_kept_files(&commands), 0);
	assert_int_equal(commands, 0);
	sp_lab_kept_keep(roots, &since, &until);
	assert_int_equal(sp_lab_kept_files(&commands), 1);
	assert_int_equal(commands, 1);

	assert_int_equal(pipe(pipefd), 0);
	assert_int_equal(sp_lab_kept_ask_encode(SP_LAB_KEPT_LIST, 0, ask), 1);
	assert_int_equal(sp_lab_kept_serve(pipefd[1], ask, 1), 0);
	read_frames(pipefd[0], frames, sizeof(frames));
	assert_string_equal(frames, "G: F:cases/a.json D:A X:0 ");
	/* LIST forgets nothing */
	assert_int_equal(sp_lab_kept_files(&commands), 1);

	/* hostile asks: refused, nothing sent */
	assert_int_equal(sp_lab_kept_serve(pipefd[1], (unsigned char *)"Q", 1), -EBADMSG);
	assert_int_equal(sp_lab_kept_serve(pipefd[1], ask, 0), -EBADMSG);

	assert_int_equal(sp_lab_kept_ask_encode(SP_LAB_KEPT_DROP, 99, ask), 5);
	assert_int_equal(sp_lab_kept_serve(pipefd[1], ask, 5), 0);
	read_frames(pipefd[0], frames, sizeof(frames));
	assert_string_equal(frames, "X:1 ");		/* no such result */
	assert_int_equal(sp_lab_kept_files(&commands), 1);
	/* the first result kept is number 1 */
	assert_int_equal(sp_lab_kept_ask_encode(SP_LAB_KEPT_DROP, 1, ask), 5);
	assert_int_equal(sp_lab_kept_serve(pipefd[1], ask, 5), 0);
	read_frames(pipefd[0], frames, sizeof(frames));
	assert_string_equal(frames, "X:0 ");
	assert_int_equal(sp_lab_kept_files(&commands), 0);
	assert_int_equal(commands, 0);
	close(pipefd[0]);
	close(pipefd[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_window_list_drop, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
