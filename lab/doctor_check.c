#include "lab/doctor_check.h"

#include "common/log.h"
#include "dm/selector.h"
#include "lab/lab_layout.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DM_CONTROL "/dev/mapper/control"
#define INSTALLED_BACKEND "/usr/lib/tgt/backing-store/bs_delay.so"
#define BUILT_BACKEND "tgt-backend/bs_delay.so"	/* under build_dir */
/* Non-root shells on Debian have no sbin in PATH, yet tgtd lives there. */
#define SBIN_DIRS "/usr/local/sbin:/usr/sbin:/sbin"

/* The table: what the doctor lists, in the order it lists it; one
 * module per path selector of dm/selector.c follows dm-multipath. */
static const struct sp_doc_item items_before_selectors[] = {
	{ "root", SP_DOC_ROOT, NULL, SP_NEED_KERNEL, 0, "" },
	{ "device-mapper", SP_DOC_DM, "dm_mod", SP_NEED_KERNEL, 0, "" },
	{ "dm-multipath", SP_DOC_KMOD, "dm_multipath", SP_NEED_KERNEL, 0, "" },
};
static const struct sp_doc_item items_after_selectors[] = {
	{ "iscsi_tcp", SP_DOC_KMOD, "iscsi_tcp", SP_NEED_KERNEL, 0, "" },
	{ "sd_mod", SP_DOC_KMOD, "sd_mod", SP_NEED_KERNEL, 0, "" },
	{ "sch_netem", SP_DOC_KMOD, "sch_netem", SP_NEED_KERNEL, 0, "" },
	{ "veth", SP_DOC_KMOD, "veth", SP_NEED_KERNEL, 0, "" },
	{ "ifb", SP_DOC_KMOD, "ifb", SP_NEED_KERNEL, 0, "" },
	/* CONFIG_NET_NS is never a module; the namespace file is the proof. */
	{ "netns", SP_DOC_FILE, "/proc/self/ns/net", SP_NEED_KERNEL, 0, "" },
	{ "tgtd", SP_DOC_PROGRAM, "tgtd", SP_NEED_BOTH, 0, "" },
	{ "tgtadm", SP_DOC_PROGRAM, "tgtadm", SP_NEED_BOTH, 0, "" },
	{ "iscsid", SP_DOC_PROGRAM, "iscsid", SP_NEED_BOTH, 0, "" },
	{ "iscsiadm", SP_DOC_PROGRAM, "iscsiadm", SP_NEED_BOTH, 0, "" },
	{ "fio", SP_DOC_PROGRAM, "fio", SP_NEED_BOTH, 0, "" },
	{ "dmsetup", SP_DOC_PROGRAM, "dmsetup", SP_NEED_BOTH, 0, "" },
	{ "multipath", SP_DOC_PROGRAM, "multipath", SP_NEED_BOTH, 0, "" },
	{ "tgt module bs_delay", SP_DOC_BACKEND, "bs_delay.so", SP_NEED_BOTH, 0, "" },
	{ "qemu-system-x86_64", SP_DOC_PROGRAM, "qemu-system-x86_64", SP_NEED_LAB, 0, "" },
	{ "lab VM prepared", SP_DOC_BUILT, "lab/" SP_LAB_LINK_QEMU "/" SP_LAB_READY, 0, 0, "" },
};

#define N_BEFORE (sizeof(items_before_selectors) / sizeof(items_before_selectors[0]))
#define N_AFTER (sizeof(items_after_selectors) / sizeof(items_after_selectors[0]))
/* The selectors a native run needs; io-affinity, after them, is for
 * the kernel comparisons only (docs/kernels.md), which the lab builds. */
#define N_DOC_SELECTORS SP_SEL_IOA
#define N_ITEMS (N_BEFORE + N_DOC_SELECTORS + N_AFTER)

static void doctor_items(struct sp_doc_item *items)
{
	const struct sp_doc_item selector = { NULL, SP_DOC_KMOD, NULL,
					      SP_NEED_KERNEL, 0, "" };
	size_t k;

	memcpy(items, items_before_selectors, sizeof(items_before_selectors));
	items += N_BEFORE;
	for (k = 0; k < N_DOC_SELECTORS; k++, items++) {
		*items = selector;
		items->label = sp_selectors[k].kernel_name;
		items->what = sp_selectors[k].module;
	}
	memcpy(items, items_after_selectors, sizeof(items_after_selectors));
}

static int same_mod_char(char a, char b)
{
	if (a == '-')
		a = '_';
	if (b == '-')
		b = '_';
	return a == b;
}

/* Does text[0..len) name mod, treating '-' and '_' alike? */
static int mod_name_equal(const char *text, size_t len, const char *mod)
{
	size_t i;

	if (strlen(mod) != len)
		return 0;
	for (i = 0; i < len; i++) {
		if (!same_mod_char(text[i], mod[i]))
			return 0;
	}
	return 1;
}

int sp_kmod_in_proc_modules(const char *proc_modules, const char *mod)
{
	const char *line = proc_modules;

	while (line && *line) {
		size_t len = strcspn(line, " \t\n");

		if (mod_name_equal(line, len, mod))
			return 1;
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return 0;
}

void sp_kmod_name_from_path(const char *path, size_t path_len, char *name,
			    size_t len)
{
	const char *base = path, *p, *ko = NULL;
	size_t n, i;

	for (p = path; p < path + path_len; p++) {
		if (*p == '/')
			base = p + 1;
	}
	/* ".ko" may be followed by a compression suffix (.xz, .zst, .gz) */
	for (p = base; p + 3 <= path + path_len; p++) {
		if (!strncmp(p, ".ko", 3) &&
		    (p + 3 == path + path_len || p[3] == '.'))
			ko = p;
	}
	n = (size_t)((ko ? ko : path + path_len) - base);
	if (!len)
		return;
	if (n >= len)
		n = len - 1;
	for (i = 0; i < n; i++)
		name[i] = base[i] == '-' ? '_' : base[i];
	name[n] = '\0';
}

int sp_kmod_in_path_list(const char *list, const char *mod)
{
	const char *line = list;
	char name[128];

	while (line && *line) {
		size_t len = strcspn(line, ":\n");

		while (len && (line[len - 1] == ' ' || line[len - 1] == '\t'))
			len--;
		if (len) {
			sp_kmod_name_from_path(line, len, name, sizeof(name));
			if (mod_name_equal(name, strlen(name), mod))
				return 1;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return 0;
}

int sp_doctor_which(const struct sp_doctor_ops *ops, const char *path_env,
		    const char *prog, char *out, size_t len)
{
	const char *lists[2] = { path_env ? path_env : "", SBIN_DIRS };
	size_t l;

	if (strchr(prog, '/')) {
		if (ops->access(ops->ctx, prog, X_OK))
			return -ENOENT;
		snprintf(out, len, "%s", prog);
		return 0;
	}
	for (l = 0; l < 2; l++) {
		const char *dir = lists[l];

		while (*dir) {
			size_t n = strcspn(dir, ":");
			char cand[512];

			/* An empty PATH entry means the current directory;
			 * the doctor does not trust that. */
			if (n && (size_t)snprintf(cand, sizeof(cand), "%.*s/%s",
						  (int)n, dir, prog) < sizeof(cand) &&
			    !ops->access(ops->ctx, cand, X_OK)) {
				snprintf(out, len, "%s", cand);
				return 0;
			}
			dir += n;
			if (*dir == ':')
				dir++;
		}
	}
	return -ENOENT;
}

/* The three files a module can show up in, read once. NULL: unreadable,
 * which counts as "not listed" (the host may have no /lib/modules). */
struct kmod_sources {
	char *proc_modules;
	char *builtin;
	char *dep;
};

static void load_kmod_sources(const struct sp_doctor_ops *ops,
			      const char *release, struct kmod_sources *src)
{
	char path[512];

	memset(src, 0, sizeof(*src));
	if (ops->read_file(ops->ctx, "/proc/modules", &src->proc_modules))
		src->proc_modules = NULL;
	if (!release[0])
		return;
	snprintf(path, sizeof(path), "/lib/modules/%s/modules.builtin", release);
	if (ops->read_file(ops->ctx, path, &src->builtin))
		src->builtin = NULL;
	snprintf(path, sizeof(path), "/lib/modules/%s/modules.dep", release);
	if (ops->read_file(ops->ctx, path, &src->dep))
		src->dep = NULL;
}

static enum sp_doc_state kmod_state(const struct sp_doctor_ops *ops,
				    const struct kmod_sources *src,
				    const char *mod)
{
	char sys[256];

	if (src->proc_modules && sp_kmod_in_proc_modules(src->proc_modules, mod))
		return SP_DOC_LOADED;
	/* Only modules loaded from a .ko have an initstate; a built-in
	 * driver with parameters still gets a /sys/module directory. */
	snprintf(sys, sizeof(sys), "/sys/module/%s/initstate", mod);
	if (!ops->access(ops->ctx, sys, F_OK))
		return SP_DOC_LOADED;
	if (src->builtin && sp_kmod_in_path_list(src->builtin, mod))
		return SP_DOC_BUILTIN;
	snprintf(sys, sizeof(sys), "/sys/module/%s", mod);
	if (!ops->access(ops->ctx, sys, F_OK))
		return SP_DOC_BUILTIN;
	if (src->dep && sp_kmod_in_path_list(src->dep, mod))
		return SP_DOC_LOADABLE;
	return SP_DOC_MISSING;
}

/* dm_mod as a module; once it is in the kernel, dmsetup also needs the
 * control node, which devtmpfs makes and a bare /dev may lack. */
static enum sp_doc_state dm_state(const struct sp_doctor_ops *ops,
				  const struct kmod_sources *src,
				  char *where, size_t len)
{
	enum sp_doc_state state = kmod_state(ops, src, "dm_mod");

	snprintf(where, len, "dm_mod");
	if (state != SP_DOC_LOADED && state != SP_DOC_BUILTIN)
		return state;
	if (ops->access(ops->ctx, DM_CONTROL, F_OK)) {
		snprintf(where, len, "dm_mod, but no %s (dmsetup mknodes)", DM_CONTROL);
		return SP_DOC_MISSING;
	}
	snprintf(where, len, "dm_mod, %s", DM_CONTROL);
	return state;
}

static enum sp_doc_state backend_state(const struct sp_doctor_ops *ops,
				       const struct sp_doctor_env *env,
				       char *where, size_t len)
{
	if (!ops->access(ops->ctx, INSTALLED_BACKEND, R_OK)) {
		snprintf(where, len, "%s", INSTALLED_BACKEND);
		return SP_DOC_PRESENT;
	}
	if (env->build_dir && env->build_dir[0] &&
	    (size_t)snprintf(where, len, "%s/%s", env->build_dir,
			     BUILT_BACKEND) < len &&
	    !ops->access(ops->ctx, where, R_OK))
		return SP_DOC_PRESENT;
	snprintf(where, len, "make install-backend");
	return SP_DOC_MISSING;
}

static int item_present(const struct sp_doc_item *item)
{
	return item->state != SP_DOC_MISSING;
}

int sp_doctor_run(const struct sp_doctor_ops *ops,
		  const struct sp_doctor_env *env,
		  struct sp_doctor_report *report)
{
	const size_t n = N_ITEMS;
	struct kmod_sources src;
	int native = 1, native_ready = 1, lab_ready = 1;
	size_t i;

	if (n > SP_DOCTOR_MAX_ITEMS)
		return -EOVERFLOW;
	memset(report, 0, sizeof(*report));
	if (ops->kernel_release(ops->ctx, report->release, sizeof(report->release)))
		report->release[0] = '\0';
	load_kmod_sources(ops, report->release, &src);
	doctor_items(report->items);

	for (i = 0; i < n; i++) {
		struct sp_doc_item *item = &report->items[i];

		switch (item->kind) {
		case SP_DOC_ROOT:
			item->state = ops->is_root(ops->ctx) ? SP_DOC_PRESENT : SP_DOC_MISSING;
			break;
		case SP_DOC_KMOD:
			item->state = kmod_state(ops, &src, item->what);
			snprintf(item->where, sizeof(item->where), "%s", item->what);
			break;
		case SP_DOC_DM:
			item->state = dm_state(ops, &src, item->where,
					       sizeof(item->where));
			break;
		case SP_DOC_FILE:
			item->state = ops->access(ops->ctx, item->what, F_OK) ?
				      SP_DOC_MISSING : SP_DOC_PRESENT;
			snprintf(item->where, sizeof(item->where), "%s", item->what);
			break;
		case SP_DOC_PROGRAM:
			item->state = sp_doctor_which(ops, env->path_env, item->what,
						      item->where, sizeof(item->where)) ?
				      SP_DOC_MISSING : SP_DOC_PRESENT;
			break;
		case SP_DOC_BACKEND:
			item->state = backend_state(ops, env, item->where,
						    sizeof(item->where));
			break;
		case SP_DOC_BUILT:
			item->state = SP_DOC_MISSING;
			if (env->build_dir && env->build_dir[0] &&
			    (size_t)snprintf(item->where, sizeof(item->where), "%s/%s",
					     env->build_dir, item->what) < sizeof(item->where) &&
			    !ops->access(ops->ctx, item->where, F_OK))
				item->state = SP_DOC_PRESENT;
			break;
		}
		if (item_present(item))
			continue;
		if (item->need & SP_NEED_KERNEL)
			native = 0;
		if (item->need & (SP_NEED_KERNEL | SP_NEED_BOTH))
			native_ready = 0;
		if (item->need & (SP_NEED_BOTH | SP_NEED_LAB))
			lab_ready = 0;
	}
	report->n_items = n;
	report->mode = native ? SP_MODE_NATIVE : SP_MODE_LAB;
	report->ready = native ? native_ready : lab_ready;
	free(src.proc_modules);
	free(src.builtin);
	free(src.dep);
	sp_debug("doctor: kernel %s, mode %s, ready %d",
		 report->release[0] ? report->release : "?",
		 native ? "native" : "lab", report->ready);
	return 0;
}

const char *sp_doc_state_name(enum sp_doc_state state)
{
	switch (state) {
	case SP_DOC_MISSING: return "MISSING";
	case SP_DOC_LOADED: return "loaded";
	case SP_DOC_BUILTIN: return "built in";
	case SP_DOC_LOADABLE: return "loadable";
	case SP_DOC_PRESENT: return "present";
	}
	return "?";
}

size_t sp_doctor_format_item(const struct sp_doc_item *item, char *buf,
			     size_t len)
{
	const char *scope = item->need & SP_NEED_LAB ? " (lab only)" :
			    !item->need ? " (optional; make lab)" : "";
	int ret;

	if (item->kind == SP_DOC_ROOT)
		ret = snprintf(buf, len, "%-26s %s", item->label,
			       item->state == SP_DOC_PRESENT ? "yes" : "NO");
	else
		ret = snprintf(buf, len, "%-26s %-9s %s%s", item->label,
			       sp_doc_state_name(item->state),
			       item->state == SP_DOC_MISSING &&
			       item->kind == SP_DOC_PROGRAM ? item->what : item->where,
			       scope);
	return ret < 0 ? 0 : (size_t)ret;
}

/* Appends the labels of the missing items matching need to buf. */
static size_t list_missing(const struct sp_doctor_report *report,
			   unsigned need, char *buf, size_t len, size_t off)
{
	const char *sep = "";
	size_t i;

	for (i = 0; i < report->n_items; i++) {
		const struct sp_doc_item *item = &report->items[i];
		int ret;

		if (item_present(item) || !(item->need & need))
			continue;
		ret = snprintf(buf + off, off < len ? len - off : 0, "%s%s",
			       sep, item->label);
		if (ret > 0)
			off += (size_t)ret;
		sep = ", ";
	}
	return off;
}

size_t sp_doctor_format_verdict(const struct sp_doctor_report *report,
				char *buf, size_t len)
{
	size_t off;
	int ret;

	if (!len)
		return 0;
	buf[0] = '\0';
	if (report->mode == SP_MODE_NATIVE)
		ret = snprintf(buf, len, "verdict: slowpath runs natively");
	else
		ret = snprintf(buf, len, "verdict: slowpath runs in the lab "
			       "(native needs root and every kernel piece)");
	off = ret > 0 ? (size_t)ret : 0;
	if (report->ready)
		return off;
	ret = snprintf(buf + off, off < len ? len - off : 0, "; missing: ");
	off += ret > 0 ? (size_t)ret : 0;
	return list_missing(report, report->mode == SP_MODE_NATIVE ?
			    SP_NEED_KERNEL | SP_NEED_BOTH :
			    SP_NEED_BOTH | SP_NEED_LAB, buf, len, off);
}
