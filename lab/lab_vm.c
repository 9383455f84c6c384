#include "lab/lab_vm.h"

#include "lab/lab_frame.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Names that reach the guest besides SLOWPATH_*: what tests/run and the
 * tests read, and the locale so messages and number formats agree. */
static const char *const passed_names[] = {
	"BUILD", "RESULTS", "CMOCKA_MESSAGE_OUTPUT", "LANG", "LC_ALL", "TZ",
	NULL,
};

int sp_strv_push(struct sp_strv *sv, const char *s)
{
	char **v;
	size_t cap;

	if (sv->n + 2 > sv->cap) {
		cap = sv->cap ? sv->cap * 2 : 32;
		v = realloc(sv->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		sv->v = v;
		sv->cap = cap;
	}
	sv->v[sv->n] = strdup(s);
	if (!sv->v[sv->n])
		return -ENOMEM;
	sv->n++;
	sv->v[sv->n] = NULL;
	return 0;
}

int sp_strv_pushf(struct sp_strv *sv, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int ret;

	va_start(ap, fmt);
	ret = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (ret < 0)
		return -ENOMEM;
	ret = sp_strv_push(sv, s);
	free(s);
	return ret;
}

void sp_strv_free(struct sp_strv *sv)
{
	size_t i;

	for (i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = sv->cap = 0;
}

char *sp_lab_qemu_escape(const char *value)
{
	size_t commas = 0, i, j;
	char *out;

	for (i = 0; value[i]; i++)
		commas += value[i] == ',';
	out = malloc(i + commas + 1);
	if (!out)
		return NULL;
	for (i = j = 0; value[i]; i++) {
		out[j++] = value[i];
		if (value[i] == ',')
			out[j++] = ',';
	}
	out[j] = '\0';
	return out;
}

/* Pushes fmt with one escaped path substituted for its single %s. */
static int push_with_path(struct sp_strv *sv, const char *fmt,
			  const char *path)
{
	char *esc = sp_lab_qemu_escape(path);
	int ret;

	if (!esc)
		return -ENOMEM;
	ret = sp_strv_pushf(sv, fmt, esc);
	free(esc);
	return ret;
}

/* A virtio serial port the guest writes NAME to, landing in host fd. */
static int push_port(struct sp_strv *sv, const char *id, int fd,
		     const char *name)
{
	int ret = sp_strv_push(sv, "-chardev");

	ret |= sp_strv_pushf(sv, "file,id=%s,path=/proc/self/fd/%d", id, fd);
	ret |= sp_strv_push(sv, "-device");
	ret |= sp_strv_pushf(sv, "virtserialport,chardev=%s,name=%s", id, name);
	return ret;
}

static int qemu_vm_ok(const struct sp_lab_vm *vm)
{
	if (!vm->qemu || !vm->kernel || !vm->initrd || !vm->xchg_dir ||
	    vm->cpus < 1 || vm->mem_bytes < (64ULL << 20))
		return 0;
	if (vm->mode != SP_LAB_SHELL &&
	    (!vm->console_log || vm->out_fd < 0 || vm->err_fd < 0))
		return 0;
	return vm->mode != SP_LAB_AGENT || vm->ctl_socket;
}

/* qemu itself, the machine and the kernel it boots. */
static int push_machine(const struct sp_lab_vm *vm, struct sp_strv *out)
{
	const char *append;
	int ret = 0;

	/* With 2 vCPUs under TCG the kernel distrusts the TSC and falls
	 * back to HPET, which costs every clock read a VM exit; a shell
	 * keeps the console quiet so the prompt is not buried. On a busy
	 * host the emulated timer interrupt can be late enough for the
	 * kernel's IO-APIC check to panic: no_timer_check skips it. */
	append = vm->mode != SP_LAB_SHELL ?
		"console=ttyS0 tsc=reliable clocksource=tsc no_timer_check panic=-1 loglevel=4" :
		"console=ttyS0 tsc=reliable clocksource=tsc no_timer_check panic=-1 loglevel=1";

	ret |= sp_strv_push(out, vm->qemu);
	/* Never KVM: the lab exists for hosts where it is unusable, and
	 * results must not depend on which accelerator happened to load. */
	ret |= sp_strv_push(out, "-accel");
	ret |= sp_strv_push(out, "tcg");
	/* TCG runs `rep movsb` a byte an iteration, and with ERMS or FSRM
	 * the kernel copies and clears every page with it (rep movsq
	 * without); five-level paging adds a level to every soft-MMU page
	 * walk. Neither changes what the storage stack does: without them
	 * lab/001 took 22 % less CPU (55 CPU-s against 67-75, 2026-12-06). */
	ret |= sp_strv_push(out, "-cpu");
	ret |= sp_strv_push(out, SP_LAB_QEMU_CPU);
	ret |= sp_strv_push(out, "-smp");
	ret |= sp_strv_pushf(out, "%lld", (long long)vm->cpus);
	ret |= sp_strv_push(out, "-m");
	ret |= sp_strv_pushf(out, "%lluM",
			     (unsigned long long)(vm->mem_bytes >> 20));
	ret |= sp_strv_push(out, "-nodefaults");
	ret |= sp_strv_push(out, "-nic");
	ret |= sp_strv_push(out, "none");
	ret |= sp_strv_push(out, "-display");
	ret |= sp_strv_push(out, "none");
	/* panic=-1 plus -no-reboot: a guest that panics ends qemu at once
	 * instead of hanging until the timeout. */
	ret |= sp_strv_push(out, "-no-reboot");
	ret |= sp_strv_push(out, "-kernel");
	ret |= sp_strv_push(out, vm->kernel);
	ret |= sp_strv_push(out, "-initrd");
	ret |= sp_strv_push(out, vm->initrd);
	ret |= sp_strv_push(out, "-append");
	ret |= sp_strv_push(out, append);
	return ret;
}

/* The host's root read-only, the exchange folder and --keep's. */
static int push_shares(const struct sp_lab_vm *vm, struct sp_strv *out)
{
	int ret = 0;

	ret |= sp_strv_push(out, "-virtfs");
	/* remap: the host root spans several filesystems whose inode
	 * numbers would otherwise collide in the guest. */
	ret |= sp_strv_push(out, "local,path=/,mount_tag=" SP_LAB_TAG_ROOT
			    ",security_model=none,readonly=on,multidevs=remap");
	ret |= sp_strv_push(out, "-virtfs");
	ret |= push_with_path(out, "local,path=%s,mount_tag=" SP_LAB_TAG_XCHG
			      ",security_model=none", vm->xchg_dir);
	if (vm->keep_dir) {
		/* qemu runs as root: under security_model=none the guest's
		 * root would make setuid files of root's on the host. Mapped,
		 * the guest's modes, owners and device nodes live in xattrs
		 * only; the host files are plain 0600 files and 0700 folders
		 * of root's. */
		ret |= sp_strv_push(out, "-virtfs");
		ret |= push_with_path(out, "local,path=%s,mount_tag=" SP_LAB_TAG_KEEP
				      ",security_model=mapped-xattr",
				      vm->keep_dir);
	}
	return ret;
}

/* The agent's output ports, the console log and the control socket, or
 * a shell's console on stdio. */
static int push_channels(const struct sp_lab_vm *vm, struct sp_strv *out)
{
	int ret = 0;

	if (vm->mode != SP_LAB_SHELL) {
		/* SP_LAB_AGENT: the agent's own output, for its log */
		ret |= sp_strv_push(out, "-device");
		ret |= sp_strv_push(out, "virtio-serial-pci");
		ret |= push_port(out, "labout", vm->out_fd, SP_LAB_PORT_OUT);
		ret |= push_port(out, "laberr", vm->err_fd, SP_LAB_PORT_ERR);
		ret |= sp_strv_push(out, "-serial");
		ret |= push_with_path(out, "file:%s", vm->console_log);
	}
	if (vm->mode == SP_LAB_AGENT) {
		/* wait=off: qemu boots without a client; each command is
		 * one connection, served one at a time */
		ret |= sp_strv_push(out, "-chardev");
		ret |= push_with_path(out, "socket,id=labctl,path=%s,server=on,wait=off",
				      vm->ctl_socket);
		ret |= sp_strv_push(out, "-device");
		ret |= sp_strv_push(out, "virtserialport,chardev=labctl,name=" SP_LAB_PORT_CTL);
	} else if (vm->mode == SP_LAB_SHELL) {
		/* mon: multiplexes the monitor, so Ctrl-A x always ends it. */
		ret |= sp_strv_push(out, "-serial");
		ret |= sp_strv_push(out, "mon:stdio");
	}
	return ret;
}

int sp_lab_qemu_argv(const struct sp_lab_vm *vm, struct sp_strv *out)
{
	int ret = 0;

	if (!qemu_vm_ok(vm))
		return -EINVAL;
	ret |= push_machine(vm, out);
	ret |= push_shares(vm, out);
	ret |= push_channels(vm, out);
	if (ret) {
		sp_strv_free(out);
		return -ENOMEM;
	}
	return 0;
}

static int append_str(char **buf, size_t *len, const char *s)
{
	size_t n = strlen(s);
	char *p = realloc(*buf, *len + n + 1);

	if (!p)
		return -ENOMEM;
	memcpy(p + *len, s, n + 1);
	*buf = p;
	*len += n;
	return 0;
}

int sp_lab_shell_quote(const char *s, char **buf, size_t *len)
{
	const char *p;
	char one[2] = { 0, 0 };
	int ret = append_str(buf, len, "'");

	for (p = s; *p && !ret; p++) {
		if (*p == '\'') {
			ret = append_str(buf, len, "'\\''");
		} else {
			one[0] = *p;
			ret = append_str(buf, len, one);
		}
	}
	return ret ? ret : append_str(buf, len, "'");
}

static int is_identifier(const char *s, size_t n)
{
	size_t i;

	if (!n || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return 0;
	for (i = 1; i < n; i++)
		if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
			return 0;
	return 1;
}

static int listed(const char *name, size_t n, const char *list)
{
	const char *p = list;
	size_t len;

	while (p && *p) {
		p += strspn(p, " ,\t");
		len = strcspn(p, " ,\t");
		if (len == n && !strncmp(p, name, n))
			return 1;
		p += len;
	}
	return 0;
}

static int reserved_name(const char *name, size_t n);

int sp_lab_env_passes(const char *entry, const char *extra)
{
	const char *eq = strchr(entry, '=');
	size_t n;
	int i;

	if (!eq)
		return 0;
	n = (size_t)(eq - entry);
	if (!is_identifier(entry, n))
		return 0;
	/* The guest sets these itself. */
	if ((n == 15 && !strncmp(entry, "SLOWPATH_IN_LAB", n)) ||
	    (n == 19 && !strncmp(entry, "SLOWPATH_LAB_ENGINE", n)) ||
	    (n == 17 && !strncmp(entry, "SLOWPATH_LAB_TIME", n)) ||
	    (n == 20 && !strncmp(entry, "SLOWPATH_LAB_PATCHES", n)) ||
	    (n == 4 && (!strncmp(entry, "PATH", n) || !strncmp(entry, "HOME", n))))
		return 0;
	if (n > 9 && !strncmp(entry, "SLOWPATH_", 9))
		return 1;
	for (i = 0; passed_names[i]; i++)
		if (strlen(passed_names[i]) == n &&
		    !strncmp(entry, passed_names[i], n))
			return 1;
	return !reserved_name(entry, n) && listed(entry, n, extra);
}

/* Names the guest sets itself, or that would change how every program
 * there runs: never taken from SLOWPATH_LAB_ENV. */
static int reserved_name(const char *name, size_t n)
{
	static const char *const reserved[] = {
		"PATH", "HOME", "IFS", "ENV", "BASH_ENV", "SHELLOPTS",
		"BASHOPTS", "PS4", "SLOWPATH_IN_LAB", "SLOWPATH_LAB_ENGINE",
		"SLOWPATH_LAB_TIME", "SLOWPATH_LAB_PATCHES", NULL,
	};
	int i;

	if (n >= 3 && !strncmp(name, "LD_", 3))
		return 1;
	for (i = 0; reserved[i]; i++)
		if (strlen(reserved[i]) == n && !strncmp(name, reserved[i], n))
			return 1;
	return 0;
}

int sp_lab_env_list_check(const char *list, char *bad, size_t len)
{
	const char *p = list;
	size_t n;

	while (p && *p) {
		p += strspn(p, " ,\t");
		n = strcspn(p, " ,\t");
		if (n && (n > 128 || !is_identifier(p, n) || reserved_name(p, n))) {
			snprintf(bad, len, "%.*s", (int)(n > 128 ? 128 : n), p);
			return -EINVAL;
		}
		p += n;
	}
	return 0;
}

static int export_line(char **buf, size_t *len, const char *name, size_t n,
		       const char *value)
{
	char head[160];
	int ret;

	if (n > sizeof(head) - 16)
		return 0;
	snprintf(head, sizeof(head), "export %.*s=", (int)n, name);
	ret = append_str(buf, len, head);
	ret = ret ? ret : sp_lab_shell_quote(value, buf, len);
	return ret ? ret : append_str(buf, len, "\n");
}

int sp_lab_job_script(enum sp_lab_mode mode, const char *cwd,
		      char *const argv[], char *const envp[],
		      const char *extra, char **out)
{
	char *buf = NULL;
	size_t len = 0;
	int ret, i;

	if (!cwd || (mode != SP_LAB_SHELL && (!argv || !argv[0])))
		return -EINVAL;
	ret = append_str(&buf, &len,
			 "# written by slowpath lab on the host; run by the guest\n");
	ret = ret ? ret : export_line(&buf, &len, "PATH", 4, SP_LAB_GUEST_PATH);
	ret = ret ? ret : export_line(&buf, &len, "HOME", 4, "/root");
	ret = ret ? ret : export_line(&buf, &len, "SLOWPATH_IN_LAB", 15, "1");
	/* The agent's environment would be every later command's, which
	 * could not unset it: each request brings its own instead. */
	if (mode == SP_LAB_AGENT)
		envp = NULL;
	for (i = 0; envp && envp[i] && !ret; i++) {
		const char *eq = strchr(envp[i], '=');

		if (sp_lab_env_passes(envp[i], extra))
			ret = export_line(&buf, &len, envp[i],
					  (size_t)(eq - envp[i]), eq + 1);
	}
	ret = ret ? ret : append_str(&buf, &len, "cd ");
	ret = ret ? ret : sp_lab_shell_quote(cwd, &buf, &len);
	ret = ret ? ret : append_str(&buf, &len,
		" || { echo \"lab: the working directory is not visible in the guest\" >&2; exit 3; }\n");
	if (mode != SP_LAB_SHELL) {
		ret = ret ? ret : append_str(&buf, &len, "exec");
		for (i = 0; argv[i] && !ret; i++) {
			ret = append_str(&buf, &len, " ");
			ret = ret ? ret : sp_lab_shell_quote(argv[i], &buf, &len);
		}
		ret = ret ? ret : append_str(&buf, &len, "\n");
	} else {
		ret = ret ? ret : append_str(&buf, &len, "PS1='[lab \\W]# '\n");
	}
	if (ret) {
		free(buf);
		return -ENOMEM;
	}
	*out = buf;
	return 0;
}

int sp_lab_config(enum sp_lab_mode mode, const char *lab_root,
		  const char *guest_init, const char *cwd, const char *term,
		  const char *keep_dir, enum sp_lab_engine engine,
		  enum sp_lab_time time, char **out)
{
	char *buf = NULL;
	size_t len = 0;
	int ret;

	if (!lab_root || !guest_init || !cwd)
		return -EINVAL;
	/* To the guest a started lab is a run whose one job is the agent:
	 * guest-init.sh runs it and powers off when it ends. */
	ret = append_str(&buf, &len, mode != SP_LAB_SHELL ?
			 "LAB_MODE=run\n" : "LAB_MODE=shell\n");
	ret = ret ? ret : append_str(&buf, &len, "LAB_ROOT=");
	ret = ret ? ret : sp_lab_shell_quote(lab_root, &buf, &len);
	ret = ret ? ret : append_str(&buf, &len, "\nLAB_GUEST_INIT=");
	ret = ret ? ret : sp_lab_shell_quote(guest_init, &buf, &len);
	ret = ret ? ret : append_str(&buf, &len, "\nLAB_CWD=");
	ret = ret ? ret : sp_lab_shell_quote(cwd, &buf, &len);
	ret = ret ? ret : append_str(&buf, &len, "\nLAB_TERM=");
	ret = ret ? ret : sp_lab_shell_quote(term ? term : "", &buf, &len);
	ret = ret ? ret : append_str(&buf, &len, "\nLAB_KEEP=");
	ret = ret ? ret : sp_lab_shell_quote(keep_dir ? keep_dir : "", &buf, &len);
	ret = ret ? ret : append_str(&buf, &len, "\nLAB_ENGINE=");
	ret = ret ? ret : append_str(&buf, &len, sp_lab_engine_name(engine));
	ret = ret ? ret : append_str(&buf, &len, "\nLAB_TIME=");
	ret = ret ? ret : append_str(&buf, &len, sp_lab_time_name(time));
	ret = ret ? ret : append_str(&buf, &len, "\n");
	if (ret) {
		free(buf);
		return -ENOMEM;
	}
	*out = buf;
	return 0;
}

int sp_lab_parse_status(const char *text, int *code)
{
	char *end;
	long v;

	while (isspace((unsigned char)*text))
		text++;
	if (!isdigit((unsigned char)*text))
		return -EINVAL;
	errno = 0;
	v = strtol(text, &end, 10);
	while (isspace((unsigned char)*end))
		end++;
	if (errno || *end || v < 0 || v > 255)
		return -EINVAL;
	*code = (int)v;
	return 0;
}

int sp_lab_series_ok(const char *series)
{
	const char *p = series;
	int dots = 0;

	if (!p || !isdigit((unsigned char)*p) || strlen(p) > 8)
		return 0;
	for (; *p; p++) {
		if (*p == '.') {
			if (dots++ || !isdigit((unsigned char)p[1]))
				return 0;
		} else if (!isdigit((unsigned char)*p)) {
			return 0;
		}
	}
	return dots == 1;
}

int sp_lab_release_in_series(const char *release, const char *series)
{
	size_t n;

	if (!release || !sp_lab_series_ok(series))
		return 0;
	n = strlen(series);
	/* "6.1" is no prefix of "6.12.x": the next character must end it */
	return !strncmp(release, series, n) &&
	       (release[n] == '.' || release[n] == '-' || release[n] == '\0');
}

static const char *const engine_names[] = { "qemu", "uml" };
static const char *const time_names[] = { "real", "exact" };

const char *sp_lab_engine_name(enum sp_lab_engine e)
{
	return (unsigned int)e < 2 ? engine_names[e] : "?";
}

const char *sp_lab_time_name(enum sp_lab_time t)
{
	return (unsigned int)t < 2 ? time_names[t] : "?";
}

static int name_index(const char *s, const char *const names[2])
{
	int i;

	for (i = 0; s && i < 2; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

int sp_lab_engine_parse(const char *s, enum sp_lab_engine *out)
{
	int i = name_index(s, engine_names);

	if (i < 0)
		return -EINVAL;
	*out = (enum sp_lab_engine)i;
	return 0;
}

int sp_lab_time_parse(const char *s, enum sp_lab_time *out)
{
	int i = name_index(s, time_names);

	if (i < 0)
		return -EINVAL;
	*out = (enum sp_lab_time)i;
	return 0;
}
