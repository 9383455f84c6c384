/* The third published reference, nvme-latency-2025: the table of the
 * latency I/O policy for NVMe native multipath (RFC "adaptive" 2025,
 * PATCHv6 May 2026, not merged; harness/repro/data/nvme-latency-2025.tsv):
 * MiB/s per iopolicy on 2 NVMe/TCP paths, one about 30 ms slower, read
 * and write. Absolute MiB/s belong to that hardware, so what is scored
 * are the ratios between policies (rr/numa, qd/rr), measured against
 * published. Pure: the loader reads only the file it is given. */
#ifndef SP_REF_NVME_H
#define SP_REF_NVME_H

#include <stddef.h>

#define SP_NVREF_DEFAULT_DATA "harness/repro/data/nvme-latency-2025.tsv"
/* a measured ratio within 15 % of the published one is "as published":
 * the published ratios themselves differ by 10 % (rr/numa) to 40 %
 * (qd/rr) between read and write */
#define SP_NVREF_TOLERANCE 0.15

enum sp_nvref_pol { SP_NVREF_NUMA, SP_NVREF_RR, SP_NVREF_QD,
		    SP_NVREF_ADAPTIVE, SP_NVREF_NPOL };
enum sp_nvref_rw { SP_NVREF_READ, SP_NVREF_WRITE, SP_NVREF_RW,
		   SP_NVREF_NRW };

/* MiB/s per (rw, policy); < 0 where there is none */
struct sp_nvref_table {
	double mibps[SP_NVREF_NRW][SP_NVREF_NPOL];
};

/* the kernel's names: numa, round-robin, queue-depth, adaptive */
const char *sp_nvref_pol_name(enum sp_nvref_pol p);
/* a kernel name or numa|rr|qd|adaptive: the enum value, or -EINVAL */
int sp_nvref_pol_parse(const char *name);
/* read, write, rw (fio's sequential names, as the table's) */
const char *sp_nvref_rw_name(enum sp_nvref_rw rw);
int sp_nvref_rw_parse(const char *name);

void sp_nvref_init(struct sp_nvref_table *t);
/* "POLICY RW MIBPS" rows after an optional header, '#' comments. 0, or
 * -EINVAL with one "ORIGIN:LINE: ..." error and t left empty. */
int sp_nvref_parse(const char *text, const char *origin,
		   struct sp_nvref_table *t);
int sp_nvref_load(const char *path, struct sp_nvref_table *t);

/* 1 when a kernel release ("6.12.95+deb12-amd64") has queue-depth
 * (6.11 and later), 0 when not, -EINVAL for one that is no release */
int sp_nvref_kernel_has_qd(const char *release);

/* one scored ratio num/den in one rw */
struct sp_nvref_ratio {
	enum sp_nvref_rw rw;
	enum sp_nvref_pol num, den;
	double published, measured;	/* < 0: none */
	double rel;			/* measured / published - 1 */
	const char *verdict;		/* "as published", "differs", ... */
};

#define SP_NVREF_NRATIOS (SP_NVREF_NRW * 3)

/* The ratios rr/numa, qd/rr, adaptive/qd of every rw, in that order:
 * each with both sides where both tables have them. Returns how many
 * rows were written (at most max). */
size_t sp_nvref_score(const struct sp_nvref_table *pub,
		      const struct sp_nvref_table *meas,
		      struct sp_nvref_ratio *rows, size_t max);

/* The report: measured MiB/s per policy and rw, then each ratio beside
 * the published, its verdict; missing (NULL: none) says why a policy
 * was not run, e.g. "queue-depth: not in this kernel (6.1...)". 0, or
 * -ENOSPC when buf is too small (truncated). */
int sp_nvref_report(const struct sp_nvref_table *pub,
		    const struct sp_nvref_table *meas, const char *missing,
		    char *buf, size_t len);

#endif
