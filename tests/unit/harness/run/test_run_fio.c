#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/run/run_fio.h"

#define DEV "/dev/mapper/slowpath-skew4"

static void plan_init(struct sp_run_plan *p)
{
	memset(p, 0, sizeof(*p));
	p->numjobs = 1;
	p->size_bytes = 500ULL << 20;
	p->stop = SP_RUN_STOP_SIZE;
}

static char *joined(const struct sp_run_argv *a)
{
	static char s[2048];
	size_t i;

	s[0] = '\0';
	for (i = 0; i < a->argc; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, a->argv[i]);
	}
	return s;
}

static void reference_command_line(void **state)
{
	struct sp_run_plan p;
	struct sp_run_case c = { .sel = SP_SEL_ST, .rw = "randread",
				 .bs = 4096, .iodepth = 32 };
	struct sp_run_argv a;

	(void)state;
	plan_init(&p);
	assert_int_equal(sp_run_fio_argv(&p, &c, DEV, NULL, &a), 0);
	assert_null(a.argv[a.argc]);
	assert_string_equal(joined(&a),
		"fio --output-format=json --name=slowpath --filename=" DEV
		" --ioengine=libaio --direct=1 --rw=randread --bs=4096"
		" --iodepth=32 --numjobs=1 --size=524288000 --group_reporting");
}

static void stop_rules_in_argv(void **state)
{
	struct sp_run_plan p;
	struct sp_run_case c = { .rw = "write", .bs = 65536, .iodepth = 1 };
	struct sp_run_argv a;

	(void)state;
	plan_init(&p);
	p.stop = SP_RUN_STOP_RUNTIME;
	p.runtime_s = 5;
	p.numjobs = 4;
	assert_int_equal(sp_run_fio_argv(&p, &c, DEV, NULL, &a), 0);
	assert_non_null(strstr(joined(&a), " --runtime=5 --time_based "));
	assert_non_null(strstr(joined(&a), " --numjobs=4 "));
	assert_null(strstr(joined(&a), "number_ios"));
	p.stop = SP_RUN_STOP_IOS;
	p.ios = 3000;
	assert_int_equal(sp_run_fio_argv(&p, &c, DEV, NULL, &a), 0);
	assert_non_null(strstr(joined(&a), " --number_ios=3000 "));
	assert_null(strstr(joined(&a), "time_based"));
	/* with a job file, fio gets only the composed file */
	assert_int_equal(sp_run_fio_argv(&p, &c, DEV, "/r/raw/x.job", &a), 0);
	assert_string_equal(joined(&a), "fio --output-format=json /r/raw/x.job");
}

static void long_device_does_not_overflow(void **state)
{
	struct sp_run_plan p;
	struct sp_run_case c = { .rw = "read", .bs = 4096, .iodepth = 1 };
	struct sp_run_argv a;
	char dev[3000];

	(void)state;
	plan_init(&p);
	memset(dev, 'x', sizeof(dev) - 1);
	dev[sizeof(dev) - 1] = '\0';
	assert_int_equal(sp_run_fio_argv(&p, &c, dev, NULL, &a), -ENOSPC);
}

static void job_check_refuses_other_targets(void **state)
{
	static const struct {
		const char *text, *expect;
	} bad[] = {
		{ "[j]\nfilename=/dev/sda\n", "job.fio:2: filename=/dev/sda is not the map" },
		{ "[global]\n filename = /dev/sdb \n[j]\n", "job.fio:2: filename=/dev/sdb" },
		{ "[j]\nfilename=" DEV ":/dev/sda\n", "is not the map" },
		{ "[j]\nfilename=/dev/mapper/slowpath-skew\n", "is not the map" },
		{ "[j]\nfilename\n", "filename= is not the map" },
		{ "[j]\nFILENAME=/dev/sda\n", "filename=/dev/sda" },
		{ "[j]\ndirectory=/tmp\n", "job.fio:2: 'directory' would put files" },
		{ "[j]\nfilename_format=$jobname\n", "'filename_format'" },
		{ "include other.fio\n[j]\n", "job.fio:1: 'include' is refused" },
		{ "[j]\nexec_prerun=rm -rf /\n", "'exec_prerun' runs a command" },
		{ "[j]\nexec_postrun=true\n", "'exec_postrun'" },
		{ "[j]\nrw=randwrite\n", "'rw' is the matrix's: use --rw" },
		{ "[j]\nreadwrite=write\n", "use --rw" },
		{ "[j]\nbs=64k\n", "use --bs" },
		{ "[j]\nblocksize=64k\n", "use --bs" },
		{ "[j]\niodepth=4\n", "use --iodepth" },
		{ "[j]\nnumjobs=4\n", "use --numjobs" },
		{ "[j\nruntime=4\n", "job.fio:1: '[j' is not a fio job line" },
		/* each of these ran under fio 3.33 after the old denylist */
		{ "includeX/some/path\n[j]\n", "job.fio:1: 'include' is refused" },
		{ "[j]\nread_iolog=/etc/passwd\n", "job.fio:2: 'read_iolog'" },
		{ "[j]\nwrite_iolog=/etc/x\n", "'write_iolog' writes a file" },
		{ "[j]\nioengine=exec\nprogram=/bin/touch\n", "job.fio:2: ioengine=exec is refused" },
		{ "[j]\nioengine=external:/tmp/x.so\n", "ioengine=external:/tmp/x.so" },
		{ "[j]\nioengine\n", "ioengine= is refused" },
		{ "[j]\nprogram=/bin/touch\n", "job.fio:2: 'program' is not an option" },
		{ "[j]\nwrite_bw_log=/tmp/bw\n", "'write_bw_log' is not an option" },
		{ "[j]\nlog_avg_msec=100\n", "'log_avg_msec' is not an option" },
		{ "[j]\nverify_state_save=1\n", "'verify_state_save' is not an option" },
		{ "[j]\nioscheduler=none\n", "'ioscheduler' changes" },
		{ "[j]\ntrigger=/tmp/t\n", "'trigger' runs a command" },
		{ "[j]\ncgroup=x\n", "'cgroup' is not an option" },
		{ "[j]\n=4\n", "job.fio:2" },
	};
	char err[SP_RUN_ERRLEN];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		if (sp_run_job_check(bad[i].text, "job.fio", DEV, err,
				     sizeof(err)) != -EINVAL ||
		    !strstr(err, bad[i].expect))
			fail_msg("'%s': got '%s', want '%s'", bad[i].text, err,
				 bad[i].expect);
	}
	/* the map itself, comments and other options are fine */
	assert_int_equal(sp_run_job_check("; mine\n# also\n[global]\n"
					  "randrepeat=0\n[j]\nfilename=" DEV
					  "\nrwmixread=70\nnorandommap\n"
					  "ioengine=io_uring\nverify=crc32c\n",
					  "job.fio", DEV, err, sizeof(err)), 0);
	assert_int_equal(sp_run_job_check("", "job.fio", DEV, err, sizeof(err)),
			 0);
}

static void job_compose_forces_the_map(void **state)
{
	struct sp_run_plan p;
	struct sp_run_case c = { .sel = SP_SEL_HST, .rw = "randwrite",
				 .bs = 4096, .iodepth = 8 };
	char err[SP_RUN_ERRLEN], *out;
	const char *text = "[global]\nrandrepeat=0\n[mine]\nfilename=" DEV
			   "\nrwmixread=70\n";

	(void)state;
	plan_init(&p);
	p.stop = SP_RUN_STOP_RUNTIME;
	p.runtime_s = 5;
	assert_int_equal(sp_run_job_compose(text, "job.fio", &p, &c, DEV, &out,
					    err, sizeof(err)), 0);
	assert_non_null(strstr(out, "[global]\nfilename=" DEV "\n"));
	assert_non_null(strstr(out, "\nrw=randwrite\nbs=4096\niodepth=8\n"));
	assert_non_null(strstr(out, "\nruntime=5\ntime_based=1\n"));
	assert_non_null(strstr(out, "\n[mine]\n"));
	assert_non_null(strstr(out, "\nrwmixread=70\n"));
	/* exactly one filename line: ours */
	assert_null(strstr(strstr(out, "filename=") + 1, "filename="));
	/* the user's file defines a job: no extra one */
	assert_null(strstr(out, "[slowpath]"));
	free(out);

	/* only options: a job section is added so fio has a job */
	assert_int_equal(sp_run_job_compose("[global]\nrandrepeat=0\n", "g.fio",
					    &p, &c, DEV, &out, err,
					    sizeof(err)), 0);
	assert_non_null(strstr(out, "\n[slowpath]\n"));
	free(out);

	/* a bad file composes nothing */
	out = (char *)1;
	assert_int_equal(sp_run_job_compose("[j]\nfilename=/dev/sda\n", "b.fio",
					    &p, &c, DEV, &out, err,
					    sizeof(err)), -EINVAL);
	assert_null(out);
	assert_non_null(strstr(err, "b.fio:2"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reference_command_line),
		cmocka_unit_test(stop_rules_in_argv),
		cmocka_unit_test(long_device_does_not_overflow),
		cmocka_unit_test(job_check_refuses_other_targets),
		cmocka_unit_test(job_compose_forces_the_map),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
