/* What `slowpath selector build` checks in a user's selector, as text:
 * the name its struct path_selector_type registers (from the source),
 * whether the built module really registers one (from the .ko's bytes),
 * its module name (.modinfo), and the compiler's first error. Pure, so
 * a hostile file is judged without running anything. */
#ifndef SP_DM_SELECTOR_SRC_H
#define SP_DM_SELECTOR_SRC_H

#include <stddef.h>

/* The .name = "..." of the first `struct path_selector_type X = {...}`
 * initialiser in src, or .name = MACRO with a `#define MACRO "..."`. 0, -ENOENT (no such initialiser, or no .name
 * string in it), -EINVAL (the name fails sp_name_ok or is longer than
 * SP_SEL_NAME_MAX - 1). */
int sp_selector_src_name(const char *src, char *name, size_t len);

/* Does the module image (len bytes) call dm_register_path_selector and
 * carry name as a string of its own? 1 or 0. */
int sp_selector_ko_registers(const char *ko, size_t len, const char *name);

/* The module's own name from its .modinfo "name=" string. 0 or
 * -ENOENT (none, or not a sp_name_ok name that fits). */
int sp_selector_ko_modname(const char *ko, size_t len, char *mod,
			   size_t modlen);

/* The module's .modinfo "srcversion=" string (modpost writes it when
 * the kernel has CONFIG_MODULE_SRCVERSION_ALL or `selector build` asks
 * for it). 0 or -ENOENT (none, or not 1..len-1 letters and digits). */
int sp_selector_ko_srcversion(const char *ko, size_t len, char *out,
			      size_t outlen);

/* The first line of a compiler's output that says "error" (gcc's
 * "file:line:col: error: ...", or make's "*** ... Error N" when the
 * compiler said nothing), with every occurrence of tmpdir replaced by
 * shown; "" when there is none. */
void sp_selector_first_error(const char *log, const char *tmpdir,
			     const char *shown, char *line, size_t len);

#endif
