/* lab run --keep DIR on the uml engine: the guest can write no host
 * folder but its exchange folder, so what it writes under DIR lands in
 * XCHG/keep and is copied into DIR once it has stopped. The tree is the
 * guest's and so hostile: only folders and regular files are followed,
 * never a link, a device or a FIFO, at most SP_LAB_KEEP_DEPTH deep, and
 * every file goes through the host's copy-back sink (lab_ctl.h), whose
 * output-folder rules the running lab's copy-back uses too. */
#ifndef SP_LAB_KEEP_H
#define SP_LAB_KEEP_H

#define SP_LAB_KEEP_DEPTH 16

struct sp_lab_keep_count {
	unsigned int copied, failed, skipped;
};

/* 0, or -errno when src cannot be read at all; the count says how
 * many files went where (failed: refused, short, or a file already in
 * dest, which is never replaced; skipped: not a regular file or folder,
 * or too deep). */
int sp_lab_keep_copy(const char *src, const char *dest,
		     struct sp_lab_keep_count *count);

#endif
