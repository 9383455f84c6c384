/* What `slowpath up`, `status`, `selector set` and `delay set` do once
 * their options are parsed: the topology lock, the journal, the
 * sequence through sp_sys_real, and what they say (the log hook; up's
 * map and status's table on stdout). The CLI calls them after its
 * option tables, and reproduce's real effects call them too, so k stays
 * a number and a reproduction prints what the user's commands would.
 * `down` undoes faults first, so it is the fault room's
 * (harness/fault/fault_do.h). Each returns an sp_exit code. */
#ifndef SP_BRINGUP_DO_H
#define SP_BRINGUP_DO_H

#include <stddef.h>
#include <stdint.h>

#include "harness/bringup/bringup.h"

/* up's options as plain values. */
struct sp_up_args {
	const char *selector;	/* a short name; NULL: the topology's */
	int mechanism;		/* enum sp_mech; -1: the topology's */
	int64_t unit_ns, base_weight, threshold_multiplier;
	int64_t tgtd_wait_s, disk_wait_s;
	int64_t scale;
	int calibrate;
	int64_t calib_base_ns, calib_rounds, calib_runtime_s;
	int64_t serial_base_ns;
	int transport;		/* enum sp_transport; -1: the topology's */
	int not_serial;		/* nvme-tcp over a serial topology */
	/* --hst: "stock", "5.8" or "5.8:SKEW" (lab/hst_info.h); NULL:
	 * stock */
	const char *hst;
};

/* `slowpath up TOPOLOGY` (a name or a file) with a's options;
 * check_only: the topology loaded and the options checked against it,
 * nothing done. */
int sp_do_up(const char *topology, const struct sp_up_args *a, int check_only);
/* `slowpath status`: the topology that is up, or "no topology is up". */
int sp_do_status(void);
/* Its first line ("topology u10 (FILE) tag d2c1, up", or "no topology
 * is up"): what lab status shows of the guest's topology. */
int sp_do_status_line(char *line, size_t len);
/* `slowpath selector set` of sel on the map that is up. */
int sp_do_selector_set(const struct sp_dm_selector *sel);
/* `slowpath delay set PATH` to rd (read) and wr (write; -1: as rd),
 * each already within SP_DELAY_MAX_NS. */
int sp_do_delay_set(const char *path, int64_t rd_ns, int64_t wr_ns);

/* Shared with down (fault room): an up/down/selector/delay errno as an
 * exit code; the topology lock for command what (SP_EXIT_RUNTIME, said,
 * when another slowpath holds it past the wait); the journal loaded
 * (1 when there is none, -errno said). */
int sp_do_exit_code(int ret);
int sp_do_take_lock(const char *what, int *fd);
int sp_do_load_state(struct sp_state *st);

#endif
