/* The prepared lab's folder ($BUILD/lab), as lab/prepare.sh (qemu) and
 * lab/uml-build.sh (uml) lay it out: the one spelling of its names on
 * the C side. Each name a script writes says which one and under which
 * of its variables; host/185 holds these comments against the scripts,
 * so a rename on either side fails a test instead of a lab boot. */
#ifndef SP_LAB_LAYOUT_H
#define SP_LAB_LAYOUT_H

#include <stddef.h>

/* Links in the lab folder to one preparation each. */
#define SP_LAB_LINK_QEMU "current"		/* written by: prepare.sh $LAB */
#define SP_LAB_LINK_QEMU_SERIES "current-"	/* written by: prepare.sh $LAB */
#define SP_LAB_LINK_UML "current-uml"		/* written by: uml-build.sh $LAB */
#define SP_LAB_LINK_UML_SERIES "current-uml-"	/* written by: uml-build.sh $LAB */

/* In a qemu preparation. */
#define SP_LAB_READY "ready"		/* written by: prepare.sh uml-build.sh $DIR */
#define SP_LAB_QEMU_KERNEL "vmlinuz"	/* written by: prepare.sh $DIR */
#define SP_LAB_QEMU_INITRD "initrd.gz"	/* written by: prepare.sh $DIR */
#define SP_LAB_QEMU_ROOT "root"		/* written by: prepare.sh $DIR */
#define SP_LAB_KBUILD "kbuild"		/* written by: prepare.sh $DIR */
#define SP_LAB_DM_HEADERS "dm-headers"	/* written by: prepare.sh $DIR */
#define SP_LAB_GUEST_INIT "guest-init"	/* written by: prepare.sh uml-build.sh $DIR */
/* In a uml preparation (with its ready file and guest-init). */
#define SP_LAB_UML_KERNEL "linux"	/* written by: uml-build.sh $DIR */
#define SP_LAB_UML_INIT "uml-init"	/* written by: uml-build.sh $DIR */

/* What the C side keeps in the lab folder itself. */
#define SP_LAB_LOGS "logs"		/* console and agent logs */
#define SP_LAB_XCHG "run"		/* one exchange folder a lab run */
#define SP_LAB_HST_SRC "hst/src"	/* dm headers of a lab before dm-headers */

/* $SLOWPATH_LAB_DIR, else lab/ next to this binary ($BUILD/slowpath ->
 * $BUILD/lab), so `make BUILD=...` trees keep their own lab. 0, or
 * -errno when this binary's folder is unknown (buf then says "/lab"). */
int sp_lab_dir(char *buf, size_t len);

/* The link naming series' qemu preparation ("current-6.12"), or
 * "current" for NULL. 0, -EINVAL (not a series), -ENAMETOOLONG. */
int sp_lab_current_link(const char *series, char *buf, size_t len);
/* The same for the uml preparation: "current-uml-6.12", "current-uml". */
int sp_lab_uml_link(const char *series, char *buf, size_t len);

/* dir/name into buf: 0 or -ENOSPC. */
int sp_lab_file(char *buf, size_t len, const char *dir, const char *name);

#endif
