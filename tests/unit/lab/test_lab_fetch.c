/* lab fetch (lab/lab_fetch.c) against a stand-in agent on a unix socket:
 * a fetch refused here (its --out folder is not empty) still reads the
 * agent's whole answer before it hangs up. qemu's channel tells the
 * guest of no hang-up, so an agent left mid-answer sent the rest to the
 * next command, which waited 60 s ("the lab did not answer"; the CI's
 * host/220 under load). The stand-in's writes fail (EPIPE) when the
 * host stops reading early. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/exitcodes.h"
#include "lab/lab_ctl.h"
#include "lab/lab_frame.h"
#include "lab/lab_life.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHUNK 65536
#define CHUNKS 64	/* 4 MiB: far past a unix socket's buffer */

/* The agent's answer to LIST: one kept result of one big file. 0 when
 * every frame went out. */
static int answer(int fd)
{
	static unsigned char data[CHUNK];
	char root[] = "/results/r1";
	struct sp_lab_kept k = { .id = 7, .started = 1 };
	unsigned char ask[64], *pl, code[4];
	size_t len;
	int i;

	if (read(fd, ask, sizeof(ask)) <= 0)
		return 1;
	k.roots[0] = root;
	if (sp_lab_kept_encode(&k, &pl, &len) ||
	    sp_lab_send(fd, SP_LAB_F_KEPT, pl, len))
		return 1;
	free(pl);
	if (sp_lab_file_encode(0, 0644, "cases/a.json", &pl, &len) ||
	    sp_lab_send(fd, SP_LAB_F_FILE, pl, len))
		return 1;
	free(pl);
	for (i = 0; i < CHUNKS; i++)
		if (sp_lab_send(fd, SP_LAB_F_DATA, data, sizeof(data)))
			return 1;
	sp_lab_exit_encode(0, code);
	return sp_lab_send(fd, SP_LAB_F_EXIT, code, sizeof(code)) ? 1 : 0;
}

static void test_refused_fetch_reads_the_whole_answer(void **state)
{
	char dir[] = "/tmp/test_lab_fetch.XXXXXX", full[PATH_MAX + 8];
	char keep[PATH_MAX + 16];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct sp_lab_run r;
	int lfd, fd, status;
	pid_t pid;
	FILE *f;

	(void)state;
	signal(SIGPIPE, SIG_IGN);
	assert_non_null(mkdtemp(dir));
	memset(&r, 0, sizeof(r));
	snprintf(r.sock, sizeof(r.sock), "%s/sock", dir);
	assert_true(strlen(r.sock) < sizeof(sa.sun_path));
	memcpy(sa.sun_path, r.sock, strlen(r.sock) + 1);
	lfd = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(lfd >= 0);
	assert_int_equal(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(lfd, 1), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		fd = accept(lfd, NULL, NULL);
		_exit(fd < 0 ? 2 : answer(fd));
	}
	close(lfd);
	/* --out a folder with a file in it: refused, nothing written */
	snprintf(full, sizeof(full), "%s/full", dir);
	assert_int_equal(mkdir(full, 0700), 0);
	snprintf(keep, sizeof(keep), "%s/old", full);
	f = fopen(keep, "w");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(sp_lab_fetch_kept(&r, full, "lab fetch", 1),
			 SP_EXIT_RUNTIME);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);	/* its answer all read */
	assert_int_equal(access(keep, F_OK), 0);
	snprintf(keep, sizeof(keep), "%s/r1", full);
	assert_int_not_equal(access(keep, F_OK), 0);
	snprintf(keep, sizeof(keep), "rm -rf '%s'", dir);
	assert_int_equal(system(keep), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refused_fetch_reads_the_whole_answer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
