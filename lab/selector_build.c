/* slowpath selector build and the selector store (selector_build.h). */
#include "lab/selector_build.h"

#include "common/file.h"
#include "common/log.h"
#include "common/name.h"
#include "common/proc.h"
#include "common/strbuf.h"
#include "dm/selector.h"
#include "dm/selector_src.h"
#include "lab/lab_layout.h"
#include "lab/lab_proc.h"
#include "lab/lab_vm.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#define SRC_MAX (1u << 20)	/* one selector's C file */
#define KO_MAX (16u << 20)
#define BUILD_TIMEOUT_MS (600u * 1000u)
/* how soon a stop request (SIGINT/SIGTERM in the CLI) is seen between
 * two reads of make's output */
#define STOP_POLL_MS 100

/* drivers/md's private headers a selector includes */
static const char *const dm_headers[] = {
	"dm-path-selector.h", "dm-mpath.h", "dm.h", "dm-stats.h",
};

/* The folder of this binary: $BUILD. */
static int exe_dir(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);
	char *slash;

	if (n < 0)
		return -errno;
	buf[n] = '\0';
	slash = strrchr(buf, '/');
	if (!slash)
		return -EINVAL;
	*slash = '\0';
	return 0;
}

int sp_selector_store_dir(char *buf, size_t len)
{
	const char *env = getenv("SLOWPATH_SELECTOR_DIR");
	char exe[PATH_MAX];
	int ret;

	if (env && *env)
		return sp_snprintf(buf, len, "%s", env) < 0 ? -ENAMETOOLONG : 0;
	ret = exe_dir(exe, sizeof(exe));
	if (ret)
		return ret;
	return sp_snprintf(buf, len, "%s/selectors", exe) < 0 ? -ENAMETOOLONG : 0;
}

static int is_dir(const char *path)
{
	struct stat sb;

	return !stat(path, &sb) && S_ISDIR(sb.st_mode);
}

/* The first word of FILE (a lab's ready file: "KVER PKGVER ..."). */
static int first_word(const char *path, char *out, size_t len)
{
	char head[256];
	size_t n;

	if (sp_file_read_prefix(path, head, sizeof(head)))
		return -ENOENT;
	n = strcspn(head, " \t\n");
	if (!n || n >= len)
		return -EINVAL;
	memcpy(out, head, n);
	out[n] = '\0';
	return 0;
}

static int lab_target(const char *series, struct sp_selector_target *t,
		      char *err, size_t errlen)
{
	char lab[PATH_MAX], link[32], dir[PATH_MAX], path[PATH_MAX + 64];
	int ret;

	if (sp_lab_current_link(series, link, sizeof(link)))
		return sp_errf(err, errlen, -EINVAL, "--kernel '%s' is not a "
			       "kernel series such as 6.1 or 6.12", series);
	ret = sp_lab_dir(lab, sizeof(lab));
	if (ret)
		return sp_errf(err, errlen, ret, "cannot find this binary");
	(void)sp_lab_file(path, sizeof(path), lab, link);
	if (!realpath(path, dir)) {
		/* a lab from before several series: `current` may be it */
		(void)sp_lab_file(path, sizeof(path), lab, SP_LAB_LINK_QEMU);
		if (!realpath(path, dir))
			return sp_errf(err, errlen, -ENOENT, "no lab prepared "
				       "for kernel %s (make lab KERNEL=%s)",
				       series, series);
	}
	(void)sp_lab_file(path, sizeof(path), dir, SP_LAB_READY);
	if (first_word(path, t->release, sizeof(t->release)) ||
	    !sp_lab_release_in_series(t->release, series))
		return sp_errf(err, errlen, -ENOENT, "no lab prepared for kernel "
			       "%s (make lab KERNEL=%s)", series, series);
	/* prepare.sh leaves the build tree it used and the dm headers */
	(void)sp_lab_file(path, sizeof(path), dir, SP_LAB_KBUILD);
	if (first_word(path, t->kbuild, sizeof(t->kbuild)))
		(void)sp_snprintf(t->kbuild, sizeof(t->kbuild), "/usr/lib/modules/%s/build",
			 t->release);
	(void)sp_lab_file(t->dm_headers, sizeof(t->dm_headers), dir, SP_LAB_DM_HEADERS);
	if (!is_dir(t->dm_headers))
		(void)sp_lab_file(t->dm_headers, sizeof(t->dm_headers), lab, SP_LAB_HST_SRC);
	return 0;
}

int sp_selector_target(const char *series, struct sp_selector_target *t,
		       char *err, size_t errlen)
{
	struct utsname u;
	char exe[PATH_MAX], mk[sizeof(t->kbuild) + 16];
	int ret;

	memset(t, 0, sizeof(*t));
	if (series)
		ret = lab_target(series, t, err, errlen);
	else {
		uname(&u);
		(void)sp_snprintf(t->release, sizeof(t->release), "%s", u.release);
		(void)sp_snprintf(t->kbuild, sizeof(t->kbuild), "/lib/modules/%s/build",
			 u.release);
		ret = exe_dir(exe, sizeof(exe) - 16);
		if (!ret)
			(void)sp_snprintf(t->dm_headers, sizeof(t->dm_headers),
				 "%s/hst/src", exe);
	}
	if (ret)
		return ret;
	(void)sp_snprintf(mk, sizeof(mk), "%s/Makefile", t->kbuild);
	if (access(mk, R_OK))
		return sp_errf(err, errlen, -ENOENT, "no build tree for kernel "
			       "%s (%s)%s", t->release, mk, series ? "; run make lab "
			       "KERNEL= again" : ": install its linux-headers, or "
			       "build in the lab with --kernel");
	(void)sp_snprintf(mk, sizeof(mk), "%s/%s", t->dm_headers, dm_headers[0]);
	if (access(mk, R_OK))
		return sp_errf(err, errlen, -ENOENT, "no drivers/md headers for "
			       "kernel %s (%s)%s", t->release, mk, series ?
			       "; run make lab KERNEL= again" :
			       ": make hst-module extracts them");
	return 0;
}

/* The module's file stem: the source's basename without .c, letters,
 * digits, '-' and '_' only (it becomes a make target and a file name). */
static int source_stem(const char *src, char *stem, size_t len)
{
	const char *base = strrchr(src, '/');
	size_t n, i;

	base = base ? base + 1 : src;
	n = strlen(base);
	if (n < 3 || n - 2 >= len || strcmp(base + n - 2, ".c"))
		return -EINVAL;
	n -= 2;
	for (i = 0; i < n; i++)
		if (!(base[i] == '-' || base[i] == '_' ||
		      (base[i] >= 'a' && base[i] <= 'z') ||
		      (base[i] >= 'A' && base[i] <= 'Z') ||
		      (base[i] >= '0' && base[i] <= '9')))
			return -EINVAL;
	memcpy(stem, base, n);
	stem[n] = '\0';
	return sp_name_ok(stem) ? 0 : -EINVAL;
}

static int write_in(const char *dir, const char *file, const char *data,
		    size_t len)
{
	char path[PATH_MAX];

	if (sp_snprintf(path, sizeof(path), "%s/%s", dir, file) < 0)
		return -ENAMETOOLONG;
	return sp_file_write_atomic_opt(path, data, len, 0600, SP_FILE_NOSYNC);
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* make to its end. Stopped with its whole process group (sub-makes and
 * compilers too) when *stop is set or it takes too long: a build must
 * not run on as root after slowpath is gone. */
static int run_make(struct sp_proc *p, const char *const *argv,
		    const struct sp_proc_opts *o,
		    const volatile sig_atomic_t *stop)
{
	int64_t deadline = now_ms() + BUILD_TIMEOUT_MS;
	int ret;

	if (stop && *stop)
		return -EINTR;
	ret = sp_proc_spawn(p, argv, o);
	if (ret)
		return ret;
	for (;;) {
		if ((stop && *stop) || now_ms() >= deadline) {
			sp_proc_kill_group(p, SP_PROC_KILL_GRACE_MS);
			return stop && *stop ? -EINTR : -ETIMEDOUT;
		}
		ret = sp_proc_pump(p, STOP_POLL_MS);
		if (ret == 1)
			break;
		if (ret < 0 && ret != -EINTR) {
			sp_proc_kill_group(p, SP_PROC_KILL_GRACE_MS);
			return ret;
		}
	}
	return sp_proc_wait(p, NULL);
}

/* Runs make in the temp folder; the compiler's first error in err. */
static int compile(const char *src, const struct sp_selector_target *t,
		   const char *tmp, const char *tmpsrc,
		   const volatile sig_atomic_t *stop, char *err, size_t errlen)
{
	char m[PATH_MAX + 8], line[512];
	/* no BTF: no vmlinux beside the headers; a srcversion, which
	 * /sys/module shows, so a loaded build can be told from this one */
	const char *argv[] = { "make", "-s", "-C", t->kbuild, m,
			       "CONFIG_DEBUG_INFO_BTF_MODULES=",
			       "CONFIG_MODULE_SRCVERSION_ALL=y", "modules", NULL };
	/* its own group, for the stop; the death signal for a slowpath
	 * killed outright */
	struct sp_proc_opts o = { .flags = SP_PROC_STDIN_NULL |
				  SP_PROC_CAPTURE_OUT | SP_PROC_CAPTURE_ERR |
				  SP_PROC_PGROUP | SP_PROC_PDEATHSIG };
	struct sp_proc p;
	int ret;

	(void)sp_snprintf(m, sizeof(m), "M=%s", tmp);
	sp_proc_init(&p);
	ret = run_make(&p, argv, &o, stop);
	if (ret) {
		sp_proc_release(&p);
		if (ret == -EINTR)
			return sp_errf(err, errlen, ret, "interrupted: make "
				       "stopped, nothing stored");
		return sp_errf(err, errlen, ret, "make: %s", strerror(-ret));
	}
	if (p.status) {
		/* the messages name the user's file, not our copy */
		sp_selector_first_error(p.err.p, tmpsrc, src, line, sizeof(line));
		if (!line[0])
			sp_selector_first_error(p.out.p, tmpsrc, src, line, sizeof(line));
		sp_debug("selector build: make said:\n%s%s", p.out.p ? p.out.p : "",
			 p.err.p ? p.err.p : "");
		sp_proc_release(&p);
		return sp_errf(err, errlen, -EINVAL, "%s does not build for %s: %s",
			       src, t->release, line[0] ? line : "make failed");
	}
	sp_proc_release(&p);
	return 0;
}

/* path as a folder only we can enter: made 0700, or an existing one of
 * ours (not a symlink) tightened to 0700 (stores before were 0755). */
static int private_dir(const char *path)
{
	struct stat sb;
	int fd, ret = 0;

	if (mkdir(path, 0700) && errno != EEXIST)
		return -errno;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ELOOP ? -ENOTDIR : -errno;
	if (fstat(fd, &sb))
		ret = -errno;
	else if (sb.st_uid != geteuid())
		ret = -EPERM;
	else if ((sb.st_mode & 07777) != 0700 && fchmod(fd, 0700))
		ret = -errno;
	close(fd);
	return ret;
}

static int store_ko(const char *release, const char *name, const char *ko,
		    size_t len, char *err, size_t errlen)
{
	char dir[PATH_MAX], path[PATH_MAX + 64];
	int ret = sp_selector_store_dir(dir, sizeof(dir) - 8);

	if (ret)
		return sp_errf(err, errlen, ret, "no selector store: %s",
			       strerror(-ret));
	/* a module is root's kernel code: nobody else reads or swaps it */
	ret = private_dir(dir);
	if (!ret) {
		(void)sp_snprintf(path, sizeof(path), "%s/%s", dir, release);
		ret = private_dir(path);
	} else {
		(void)sp_snprintf(path, sizeof(path), "%s", dir);
	}
	if (ret)
		return sp_errf(err, errlen, ret, "cannot use %s as the selector "
			       "store: %s", path, ret == -EPERM ? "owned by "
			       "someone else" : strerror(-ret));
	(void)sp_snprintf(path, sizeof(path), "%s/%s/%s.ko", dir, release, name);
	ret = sp_file_write_atomic(path, ko, len, 0600);
	if (ret)
		return sp_errf(err, errlen, ret, "cannot write %s: %s", path,
			       strerror(-ret));
	sp_info("selector %s for %s: %s", name, release, path);
	return 0;
}

/* Checks the built module and stores it. */
static int check_and_store(const char *src, const char *srctext,
			   const struct sp_selector_target *t, const char *kopath,
			   char *name, size_t namelen, char *err, size_t errlen)
{
	char *ko = NULL, mod[SP_SEL_NAME_MAX];
	enum sp_selector kind;
	size_t kolen = 0;
	int ret = sp_file_read(kopath, KO_MAX, &ko, &kolen);

	if (ret)
		return sp_errf(err, errlen, ret, "make left no %s: %s", kopath,
			       strerror(-ret));
	ret = sp_selector_src_name(srctext, name, namelen);
	if (ret == -EINVAL)
		ret = sp_errf(err, errlen, -EINVAL, "%s: its path selector's "
			      ".name is not a usable name (%s, under %d "
			      "characters)", src, SP_NAME_RULE, SP_SEL_NAME_MAX);
	else if (ret || !sp_selector_ko_registers(ko, kolen, name))
		ret = sp_errf(err, errlen, -EINVAL, "%s builds but registers no "
			      "path selector: it needs a struct path_selector_type "
			      "with a .name = \"...\" passed to "
			      "dm_register_path_selector()", src);
	else if (sp_selector_ko_modname(ko, kolen, mod, sizeof(mod)))
		ret = sp_errf(err, errlen, -EINVAL, "%s: the built module has no "
			      "usable name in its .modinfo", src);
	else if (!sp_selector_parse(name, &kind) && kind < SP_SEL_COUNT)
		ret = sp_errf(err, errlen, -EINVAL, "%s registers '%s', a stock "
			      "selector's name: give yours a name of its own",
			      src, name);
	else if (!sp_selector_parse(mod, &kind) ||
		 (!strncmp(mod, "dm_", 3) && !sp_selector_parse(mod + 3, &kind) &&
		  kind < SP_SEL_COUNT))
		ret = sp_errf(err, errlen, -EINVAL, "%s: module name %s is a "
			      "stock selector's", src, mod);
	else
		ret = store_ko(t->release, name, ko, kolen, err, errlen);
	free(ko);
	return ret;
}

int sp_selector_build(const char *src, const struct sp_selector_target *t,
		      const volatile sig_atomic_t *stop, char *name,
		      size_t namelen, char *err, size_t errlen)
{
	char stem[64], tmp[] = "/tmp/slowpath-selector-XXXXXX";
	char path[PATH_MAX], kbuild[128], *text = NULL, *hdr = NULL;
	size_t len = 0, hlen = 0, i;
	int ret;

	if (source_stem(src, stem, sizeof(stem)))
		return sp_errf(err, errlen, -EINVAL, "%s: want a FILE.c whose name "
			       "is letters, digits, '-' or '_' (it names the module)",
			       src);
	ret = sp_file_read_opt(src, SRC_MAX, SP_FILE_NOFOLLOW | SP_FILE_REGULAR,
			       &text, &len);
	if (ret)
		return sp_errf(err, errlen, -EINVAL, "cannot read %s: %s", src,
			       ret == -EFBIG ? "over 1 MiB" : strerror(-ret));
	if (memchr(text, '\0', len)) {
		free(text);
		return sp_errf(err, errlen, -EINVAL, "%s is not a C source (it "
			       "holds NUL bytes)", src);
	}
	if (!mkdtemp(tmp)) {
		free(text);
		return sp_errf(err, errlen, -errno, "mkdtemp: %s", strerror(errno));
	}
	(void)sp_snprintf(path, sizeof(path), "%s.c", stem);
	ret = write_in(tmp, path, text, len);
	(void)sp_snprintf(kbuild, sizeof(kbuild), "obj-m := %s.o\n", stem);
	if (!ret)
		ret = write_in(tmp, "Kbuild", kbuild, strlen(kbuild));
	for (i = 0; !ret && i < sizeof(dm_headers) / sizeof(dm_headers[0]); i++) {
		(void)sp_snprintf(path, sizeof(path), "%s/%s", t->dm_headers, dm_headers[i]);
		if (sp_file_read(path, SRC_MAX, &hdr, &hlen))
			continue;
		ret = write_in(tmp, dm_headers[i], hdr, hlen);
		free(hdr);
	}
	if (ret)
		sp_errf(err, errlen, ret, "cannot fill %s: %s", tmp, strerror(-ret));
	else {
		(void)sp_snprintf(path, sizeof(path), "%s/%s.c", tmp, stem);
		ret = compile(src, t, tmp, path, stop, err, errlen);
	}
	if (!ret) {
		(void)sp_snprintf(path, sizeof(path), "%s/%s.ko", tmp, stem);
		ret = check_and_store(src, text, t, path, name, namelen, err,
				      errlen);
	}
	sp_lab_remove_tree(tmp);
	free(text);
	return ret;
}

int sp_selector_store_has(const char *release, const char *name)
{
	char dir[PATH_MAX], path[PATH_MAX + 320];
	struct stat sb;

	if (!sp_name_ok(name) || strchr(release, '/') ||
	    sp_selector_store_dir(dir, sizeof(dir)))
		return 0;
	if (sp_snprintf(path, sizeof(path), "%s/%s/%s.ko", dir, release, name) < 0)
		return 0;
	return !lstat(path, &sb) && S_ISREG(sb.st_mode);
}

int sp_selector_store_load(void)
{
	struct utsname u;

	uname(&u);
	return sp_selector_store_load_release(u.release);
}

int sp_selector_store_load_release(const char *release)
{
	char dir[PATH_MAX], path[PATH_MAX + 320], name[SP_SEL_NAME_MAX];
	char mod[SP_SEL_NAME_MAX], sv[SP_SEL_SRCVERSION_MAX], *ko;
	enum sp_selector kind;
	struct dirent *de;
	size_t n, kolen;
	int ret, count = 0;
	DIR *d;

	if (!*release || strchr(release, '/') || !strcmp(release, "..") ||
	    !strcmp(release, "."))
		return -EINVAL;
	ret = sp_selector_store_dir(dir, sizeof(dir) - 200);
	if (ret)
		return ret;
	strncat(dir, "/", sizeof(dir) - strlen(dir) - 1);
	strncat(dir, release, sizeof(dir) - strlen(dir) - 1);
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		n = strlen(de->d_name);
		if (n < 4 || n - 3 >= sizeof(name) || strcmp(de->d_name + n - 3, ".ko"))
			continue;
		memcpy(name, de->d_name, n - 3);
		name[n - 3] = '\0';
		(void)sp_snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		ko = NULL;
		if (!sp_name_ok(name) ||
		    sp_file_read_opt(path, KO_MAX, SP_FILE_NOFOLLOW | SP_FILE_REGULAR,
				     &ko, &kolen) ||
		    !sp_selector_ko_registers(ko, kolen, name) ||
		    sp_selector_ko_modname(ko, kolen, mod, sizeof(mod)) ||
		    sp_selector_register(name, mod, path, &kind)) {
			sp_warn("selector store: skipping %s (not a selector "
				"module registering '%s', or its name clashes)",
				path, name);
		} else {
			/* what sp_bringup_load_selector compares with the
			 * loaded module; none: it cannot tell them apart */
			if (!sp_selector_ko_srcversion(ko, kolen, sv, sizeof(sv)))
				(void)sp_selector_set_srcversion(kind, sv);
			count++;
		}
		free(ko);
	}
	closedir(d);
	return count;
}
