/* Bring your own selector: `slowpath selector build FILE.c` compiles one
 * C file into a path selector module against a kernel's build tree (a
 * lab kernel's or the running one's), checks the name it registers and
 * keeps the module in the selector store, one folder per kernel release;
 * sp_selector_store_load registers what the store holds for the running
 * kernel in dm/selector.c's table, so such a selector is used like the
 * stock ones (docs/selectors.md). */
#ifndef SP_LAB_SELECTOR_BUILD_H
#define SP_LAB_SELECTOR_BUILD_H

#include <signal.h>
#include <stddef.h>

#define SP_SELBUILD_ERRLEN 1024

struct sp_selector_target {
	char release[128];	/* the kernel's uname -r */
	char kbuild[4096];	/* its build tree (Makefile for M= builds) */
	/* a folder with drivers/md's private dm-path-selector.h, dm-mpath.h,
	 * dm.h, dm-stats.h of that kernel's source; "" if none */
	char dm_headers[4096];
};

/* The store: $SLOWPATH_SELECTOR_DIR, else selectors/ beside this binary
 * ($BUILD/selectors), which the lab guest sees too. 0 or -errno. */
int sp_selector_store_dir(char *buf, size_t len);

/* Which kernel to build for. series NULL: the running kernel
 * (/lib/modules/RELEASE/build, headers from $BUILD/hst/src of make
 * hst-module); else the lab make lab KERNEL=series prepared. 0, or
 * -EINVAL / -ENOENT with err saying what is missing. */
int sp_selector_target(const char *series, struct sp_selector_target *t,
		       char *err, size_t errlen);

/* Builds src (a path the user gave: only its bytes are used, copied
 * into a private temp folder) for t, checks it registers a selector and
 * stores it as STORE/RELEASE/NAME.ko. name gets the registered name.
 * 0; -EINVAL: the file is bad (does not build, with the compiler's first
 * error; registers nothing; clashes), err says so; -EINTR: *stop was
 * set (stop may be NULL) and make was stopped with its process group;
 * other -errno: the environment failed. Either way the temp folder is
 * gone. The store's folders are made (or tightened to) 0700 and the
 * .ko is 0600: it is kernel code root loads. */
int sp_selector_build(const char *src, const struct sp_selector_target *t,
		      const volatile sig_atomic_t *stop, char *name,
		      size_t namelen, char *err, size_t errlen);

/* Registers every NAME.ko in STORE/<running release>/ whose module
 * registers NAME; warns about and skips the others. The number
 * registered, or -errno. */
int sp_selector_store_load(void);
/* The same for another kernel's release (run --kernels checks names on
 * the host for the lab's kernels). */
int sp_selector_store_load_release(const char *release);
/* Does the store hold NAME for release? 1 or 0. */
int sp_selector_store_has(const char *release, const char *name);

#endif
