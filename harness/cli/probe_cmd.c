/* `slowpath probe URL [options]`: the CLI face of probe_run(). Exit codes:
 * 1 bad URL or options (nothing was tried), 2 the CHAP secret file cannot
 * be read, 3 the target could not be reached or logged in to (CHAP
 * refused included), a command failed, the data did not verify, or the
 * run was interrupted. Run by root without --chap-* against the target
 * of the topology `slowpath up` made, it logs in with that topology's
 * CHAP credentials. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/exitcodes.h"
#include "common/log.h"
#include "harness/bringup/bringup_chap.h"
#include "harness/bringup/state.h"
#include "harness/cli/commands.h"
#include "harness/probe/probe.h"
#include "harness/probe/probe_report.h"
#include "harness/probe/probe_url.h"

static volatile sig_atomic_t probe_stop;

static void on_stop_signal(int sig)
{
	(void)sig;
	probe_stop = 1;
}

static void usage(FILE *out)
{
	char help[4096];

	sp_opt_help_argv(probe_opt_table, help, sizeof(help));
	fprintf(out, "usage: slowpath probe iscsi://HOST[:PORT]/IQN/LUN "
		"[options]\n\noptions (--name value or --name=value):\n%s"
		"\nAs root, a target of the topology 'slowpath up' made is "
		"logged in to with\nits CHAP credentials unless --chap-* "
		"say otherwise.\n"
		"\nexit: 0 ok, 1 bad URL or option, 2 CHAP secret file "
		"unreadable,\n      3 cannot connect or log in, a command "
		"failed, data differs from the\n      pattern, or "
		"interrupted\n", help);
}

/* Options may come before and after the URL. */
static int parse_args(struct probe_opts *o, int argc, char **argv)
{
	char err[SP_OPT_ERRLEN];
	int next, first = 1, ret;

	for (;;) {
		ret = sp_opt_parse_argv(probe_opt_table, o, argc, argv, first,
					&next, err, sizeof(err));
		if (ret) {
			sp_err("probe: %s", err);
			return ret;
		}
		if (next >= argc)
			break;
		if (o->url) {
			sp_err("probe: unexpected argument '%s' after the URL",
			       argv[next]);
			return -EINVAL;
		}
		o->url = argv[next];
		first = next + 1;
	}
	if (!o->url) {
		sp_err("probe: no URL given (want iscsi://HOST[:PORT]/IQN/LUN; "
		       "see slowpath probe --help)");
		return -EINVAL;
	}
	return 0;
}

static void print_result(const struct probe_opts *o,
			 const struct probe_result *r)
{
	if (o->json) {
		struct json_object *j = probe_report_json(o, r);

		if (j) {
			printf("%s\n", json_object_to_json_string_ext(j,
				JSON_C_TO_STRING_PRETTY |
				JSON_C_TO_STRING_NOSLASHESCAPE));
			json_object_put(j);
		}
	} else {
		size_t need = probe_report_text(o, r, NULL, 0) + 1;
		char *text = malloc(need);

		if (text) {
			probe_report_text(o, r, text, need);
			fputs(text, stdout);
			free(text);
		}
	}
}

/* The topology that is up keeps its secret root-only; root probing one
 * of its targets should not have to dig it out. */
static void chap_of_topology(struct probe_opts *o, const struct probe_url *u)
{
	static struct sp_state st;
	static char file[512];
	char err[SP_STATE_ERRLEN];
	const char *dir = sp_state_dir();

	if (o->chap_user || o->chap_secret_file || geteuid() != 0 ||
	    sp_state_load(dir, &st, err, sizeof(err)) || !st.chap_user[0] ||
	    strcmp(st.iqn, u->iqn))
		return;
	sp_bringup_chap_file(dir, file, sizeof(file));
	o->chap_user = st.chap_user;
	o->chap_secret_file = file;
	sp_debug("probe: CHAP as %s, secret from %s (the topology that is "
		 "up)", st.chap_user, file);
}

int cmd_probe(int argc, char **argv)
{
	struct probe_opts o;
	struct probe_result r;
	struct probe_url url;
	struct sigaction sa, old_int, old_term;
	char err[SP_OPT_ERRLEN];
	int ret;

	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return SP_EXIT_OK;
	}
	if (probe_opts_init(&o)) {
		sp_err("probe: bad built-in defaults");
		return SP_EXIT_RUNTIME;
	}
	if (parse_args(&o, argc, argv))
		return SP_EXIT_USAGE;
	if (probe_url_parse(o.url, &url, err, sizeof(err)) ||
	    probe_opts_validate(&o, err, sizeof(err))) {
		sp_err("probe: %s", err);
		return SP_EXIT_USAGE;
	}

	chap_of_topology(&o, &url);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;	/* no SA_RESTART: poll must wake */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	o.stop = &probe_stop;
	ret = probe_run(&o, &r);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);

	if (!ret || r.ios)
		print_result(&o, &r);
	fflush(stdout);
	if (ret == -EINTR)
		sp_err("probe: interrupted after %llu I/Os",
		       (unsigned long long)r.ios);
	if (ret)
		return sp_exit_from_errno(ret);
	if (r.verify_mismatches) {
		sp_err("probe: %llu of %llu I/Os read data that is not pattern "
		       "%lld (first at byte %llu)",
		       (unsigned long long)r.verify_mismatches,
		       (unsigned long long)r.ios, (long long)o.pattern,
		       (unsigned long long)r.first_mismatch);
		return SP_EXIT_RUNTIME;
	}
	return SP_EXIT_OK;
}
