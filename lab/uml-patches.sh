# shellcheck shell=bash
# Sourced by lab/uml-build.sh and tests/host/131: our transformations of
# UML's own source. The caller defines die CODE MESSAGE.

# uml_want FILE COUNT PATCH WHAT GREP-ARGS...: FILE has COUNT lines that
# grep GREP-ARGS matches, or PATCH does not fit and nothing is changed
uml_want() {
	local file=$1 want=$2 patch=$3 what=$4 n
	shift 4
	n=$(grep -c "$@" "$file")
	[ "$n" -eq "$want" ] || die 3 "$file: want $what, found $n; the $patch patch does not fit"
}

# uml_patch_xstate SRC: UML 6.1 hands the host a fixed 2696-byte XSAVE
# buffer when it switches FP state through ptrace. A host kernel with
# AMX (XSAVE of ~11 KB) takes only a buffer of its whole size and fails
# every switch (EFAULT, "ptrace set fp regs failed", init killed). Our
# transformation, like the bucket_shift one: room for 16 KiB, and the
# size the host itself reports at boot on every get and set. Later
# kernels size it from the host the same way. The declaration is static
# from 6.12 on; a source it does not fit is refused before any change.
uml_patch_xstate() {
	local regs=$1/arch/x86/um/os-Linux/registers.c offs=$1/arch/x86/um/user-offsets.c
	uml_want "$offs" 1 xstate "one 'DEFINE_LONGS(HOST_FP_SIZE, 2696);'" -F 'DEFINE_LONGS(HOST_FP_SIZE, 2696);'
	uml_want "$regs" 2 xstate "the two get/set buffer lengths" -P '^\t\tiov.iov_len = FP_SIZE \* sizeof\(unsigned long\);$'
	uml_want "$regs" 1 xstate "one 'have_xstate_support = 1;'" -P '^\t\thave_xstate_support = 1;$'
	uml_want "$regs" 1 xstate "one 'int have_xstate_support;'" -E '^(static )?int have_xstate_support;$'
	sed -i 's/DEFINE_LONGS(HOST_FP_SIZE, 2696);/DEFINE_LONGS(HOST_FP_SIZE, 16384); \/* slowpath: room for AMX *\//' "$offs"
	awk '
		/^(static )?int have_xstate_support;$/ {
			print; print "/* slowpath (lab/uml-build.sh): the XSAVE size the host reports */"
			print "static unsigned long slowpath_xstate_len = FP_SIZE * sizeof(unsigned long);"; next }
		/^\t\tiov.iov_len = FP_SIZE \* sizeof\(unsigned long\);$/ {
			print "\t\tiov.iov_len = slowpath_xstate_len;"; next }
		/^\t\thave_xstate_support = 1;$/ {
			print "\t{\n\t\thave_xstate_support = 1;\n\t\tslowpath_xstate_len = iov.iov_len;\n\t}"; next }
		{ print }' "$regs" >"$regs.slowpath" && mv "$regs.slowpath" "$regs" ||
		die 3 "patching $regs failed"
}

# uml_patch_clock_spin SRC: in inf-cpu time only a clock read moves
# time while a task runs (256 ns a read, arch/um/kernel/time.c), and a
# read is a syscall: ~40 us of the host's time in a uml guest. A task
# that waits for time to pass by reading the clock pays that for every
# 256 ns it waits: fio's start-up calibration (51 spins of 1.28 ms,
# whatever --clocksource says) took ~10 s of wall per fio run, 0.07 s
# of simulated time. So from the 65th clock read in a row of one task,
# with no other syscall between, each read costs twice the one before,
# up to 1 ms: a 10 ms spin ends in 84 reads (39 063 before). A task that
# reads the clock between syscalls of its own, as fio does around each
# I/O, never gets there and reads the clock as before. Another task's
# syscalls do not end a run: when they did, each tick's work in the
# guest started the spinner over (157 reads for 10 ms).
uml_patch_clock_spin() {
	local sys=$1/arch/um/kernel/skas/syscall.c
	[ -f "$sys" ] || die 3 "$sys: not found; the clock-spin patch does not fit"
	uml_want "$sys" 1 clock-spin "one 'void handle_syscall(struct uml_pt_regs *r)'" -x -F 'void handle_syscall(struct uml_pt_regs *r)'
	uml_want "$sys" 1 clock-spin "one 'syscall = UPT_SYSCALL_NR(r);'" -P '^\tsyscall = UPT_SYSCALL_NR\(r\);$'
	uml_want "$sys" 1 clock-spin "'#include <linux/time-internal.h>'" -x -F '#include <linux/time-internal.h>'
	grep -q slowpath_clock_spin "$sys" && die 3 "$sys: already patched"
	awk '
		/^void handle_syscall\(struct uml_pt_regs \*r\)$/ {
			print "/* slowpath (lab/uml-patches.sh): a task spinning on the clock"
			print " * in inf-cpu time: from its 65th read in a row each costs twice"
			print " * the one before, up to 1 ms */"
			print "static void slowpath_clock_spin(int syscall)"
			print "{"
			print "\tstatic const void *spinner;"
			print "\tstatic unsigned int reads;"
			print ""
			print "\tif (time_travel_mode != TT_MODE_INFCPU)"
			print "\t\treturn;"
			print "\tif (syscall != __NR_clock_gettime && syscall != __NR_gettimeofday &&"
			print "\t    syscall != __NR_time) {"
			print "\t\tif (spinner == current)"
			print "\t\t\tspinner = NULL;"
			print "\t\treturn;"
			print "\t}"
			print "\tif (spinner != current) {"
			print "\t\tspinner = current;"
			print "\t\treads = 0;"
			print "\t}"
			print "\tif (reads < 64 + 12)"
			print "\t\treads++;"
			print "\tif (reads > 64)"
			print "\t\ttime_travel_ndelay(256UL << (reads - 64));"
			print "}"
			print ""
		}
		{ print }
		/^\tsyscall = UPT_SYSCALL_NR\(r\);$/ { print "\tslowpath_clock_spin(syscall);" }
	' "$sys" >"$sys.slowpath" && mv "$sys.slowpath" "$sys" ||
		die 3 "patching $sys failed"
}

# uml_patch_fault_around SRC: a process a uml guest starts costs ~36 ms
# of the host's time, and that is most of what a lab test costs: each
# page it touches is a host fault, and a fault costs two round trips
# through ptrace (the fault, then the stub that maps the page). The
# guest's own fault-around maps up to 16 pages of a file at once, but
# 6.1 tells the host of the faulting page only (flush_tlb_page), so each
# of the other 15 faults again. Our transformation tells the host of the
# whole aligned 64 KiB around the fault (the fault-around window), in
# one stub call; only pages whose entries changed are touched. /bin/true
# takes 94 guest faults instead of 200, and ~25 ms instead of ~36.
# 6.12 tells the host of every changed page on the way back to the
# process (um_tlb_sync) and needs nothing.
uml_patch_fault_around() {
	local trap=$1/arch/um/kernel/trap.c
	[ -f "$trap" ] || die 3 "$trap: not found; the fault-around patch does not fit"
	grep -q slowpath_fault_window "$trap" && die 3 "$trap: already patched"
	if ! grep -q flush_tlb_page "$trap" && grep -q 'um_tlb_sync(' "$trap"; then
		return 0
	fi
	uml_want "$trap" 1 fault-around "one 'flush_tlb_page(vma, address);'" -P '^\tflush_tlb_page\(vma, address\);$'
	uml_want "$trap" 1 fault-around "one 'int handle_page_fault('" -P '^int handle_page_fault\('
	awk '
		/^int handle_page_fault\(/ {
			print "/* slowpath (lab/uml-patches.sh): the host learns of the 64 KiB"
			print " * the guest may have just mapped around a fault, not of one page */"
			print "static void slowpath_fault_window(struct vm_area_struct *vma,"
			print "\t\t\t\t  unsigned long address)"
			print "{"
			print "\tunsigned long start = max(vma->vm_start, address & ~0xffffUL);"
			print "\tunsigned long end = min(vma->vm_end, (address & ~0xffffUL) + 0x10000UL);"
			print ""
			print "\tflush_tlb_range(vma, start, end);"
			print "}"
			print ""
		}
		/^\tflush_tlb_page\(vma, address\);$/ { print "\tslowpath_fault_window(vma, address);"; next }
		{ print }
	' "$trap" >"$trap.slowpath" && mv "$trap.slowpath" "$trap" ||
		die 3 "patching $trap failed"
}

# uml_patch_fp_unchanged SRC: each time a uml guest's process stops
# (each system call, each fault) UML reads its FP state from the host
# process (PTRACE_GETREGSET) and writes it back before the process runs
# on (PTRACE_SETREGSET), though most of the time nothing changed it.
# The write is what costs: ~37 us of the host's CPU, where a stop
# without it costs ~19, the read ~2 of those (make bench-ptrace). Our
# transformation keeps, per host process, the state last read from or
# written to it, and skips a write of the same bytes to the same
# process. Only the process itself changes its state, and the main loop
# reads it back at every stop; what runs there otherwise makes it
# unknown: the fault handler UML runs in the process (a host signal
# handler, which saves and clears FP state), and a new process (its pid
# may be a dead one's). The guest's ptrace writes i387 state directly.
# Syscall stubs are kernel code built without SSE and run no handler.
uml_patch_fp_unchanged() {
	local regs=$1/arch/x86/um/os-Linux/registers.c proc=$1/arch/um/os-Linux/skas/process.c
	grep -q slowpath_fp "$regs" "$proc" && die 3 "$regs: already patched"
	uml_want "$regs" 1 fp-unchanged "the xstate patch's length" -x -F 'static unsigned long slowpath_xstate_len = FP_SIZE * sizeof(unsigned long);'
	uml_want "$regs" 1 fp-unchanged "one PTRACE_GETREGSET of NT_X86_XSTATE" -P '^\t\tif \(ptrace\(PTRACE_GETREGSET, pid, NT_X86_XSTATE, &iov\) < 0\)$'
	uml_want "$regs" 1 fp-unchanged "one PTRACE_SETREGSET of NT_X86_XSTATE" -P '^\t\tif \(ptrace\(PTRACE_SETREGSET, pid, NT_X86_XSTATE, &iov\) < 0\)$'
	uml_want "$regs" 1 fp-unchanged "one PTRACE_SETFPREGS" -P '^\tif \(ptrace\(PTRACE_SETFPREGS, pid, 0, fp_regs\) < 0\)$'
	uml_want "$regs" 1 fp-unchanged "'#include <errno.h>'" -x -F '#include <errno.h>'
	uml_want "$proc" 1 fp-unchanged "one 'void wait_stub_done(int pid)'" -x -F 'void wait_stub_done(int pid)'
	uml_want "$proc" 1 fp-unchanged "one fault handler run (PTRACE_CONT with SIGSEGV)" -P '^\terr = ptrace\(PTRACE_CONT, pid, 0, SIGSEGV\);$'
	uml_want "$proc" 1 fp-unchanged "one clone of userspace_tramp" -P '^\tpid = clone\(userspace_tramp, \(void \*\) sp, flags, \(void \*\) stub_stack\);$'
	# 6.1 forks a new process from a stub in the parent's; 6.12 clones
	# every one (start_userspace)
	[ "$(grep -c -P '^\tpid = data->parent_err;$' "$proc")" -le 1 ] ||
		die 3 "$proc: more than one 'pid = data->parent_err;'; the fp-unchanged patch does not fit"
	awk -f - "$regs" >"$regs.slowpath" <<-'AWK' && mv "$regs.slowpath" "$regs" || die 3 "patching $regs failed"
		/^static unsigned long slowpath_xstate_len = / {
			print
			print "/* slowpath (lab/uml-patches.sh): the FP state each host process"
			print " * holds, as last read from or written to it (pid 0: not known) */"
			print "#define SLOWPATH_FP_KNOWN 64"
			print "static struct {"
			print "\tint pid;"
			print "\tunsigned long state[FP_SIZE];"
			print "} slowpath_fp[SLOWPATH_FP_KNOWN];"
			print ""
			print "void slowpath_fp_forget(int pid);"
			print "void slowpath_fp_forget(int pid)"
			print "{"
			print "\tunsigned int i;"
			print ""
			print "\tfor (i = 0; i < SLOWPATH_FP_KNOWN; i++)"
			print "\t\tif (pid < 0 || slowpath_fp[i].pid == pid)"
			print "\t\t\tslowpath_fp[i].pid = 0;"
			print "}"
			print ""
			print "static void slowpath_fp_known(int pid, const unsigned long *fp_regs)"
			print "{"
			print "\tunsigned int i = (unsigned int)pid % SLOWPATH_FP_KNOWN;"
			print ""
			print "\tmemcpy(slowpath_fp[i].state, fp_regs, slowpath_xstate_len);"
			print "\tslowpath_fp[i].pid = pid;"
			print "}"
			print ""
			print "static int slowpath_fp_holds(int pid, const unsigned long *fp_regs)"
			print "{"
			print "\tunsigned int i = (unsigned int)pid % SLOWPATH_FP_KNOWN;"
			print ""
			print "\treturn slowpath_fp[i].pid == pid &&"
			print "\t       !memcmp(slowpath_fp[i].state, fp_regs, slowpath_xstate_len);"
			print "}"
			next
		}
		/^\t\tif \(ptrace\(PTRACE_GETREGSET, pid, NT_X86_XSTATE, &iov\) < 0\)$/ {
			print "\t\tif (ptrace(PTRACE_GETREGSET, pid, NT_X86_XSTATE, &iov) < 0) {"
			print "\t\t\tslowpath_fp_forget(pid);"
			print "\t\t\treturn -errno;"
			print "\t\t}"
			print "\t\tslowpath_fp_known(pid, fp_regs);"
			getline; next
		}
		/^\t\tif \(ptrace\(PTRACE_SETREGSET, pid, NT_X86_XSTATE, &iov\) < 0\)$/ {
			print "\t\tif (slowpath_fp_holds(pid, fp_regs))"
			print "\t\t\treturn 0;"
			print "\t\tif (ptrace(PTRACE_SETREGSET, pid, NT_X86_XSTATE, &iov) < 0) {"
			print "\t\t\tslowpath_fp_forget(pid);"
			print "\t\t\treturn -errno;"
			print "\t\t}"
			print "\t\tslowpath_fp_known(pid, fp_regs);"
			getline; next
		}
		/^\tif \(ptrace\(PTRACE_SETFPREGS, pid, 0, fp_regs\) < 0\)$/ { print "\tslowpath_fp_forget(pid);" }
		/^#include <errno.h>$/ { print; print "#include <string.h>"; next }
		{ print }
	AWK
	awk -f - "$proc" >"$proc.slowpath" <<-'AWK' && mv "$proc.slowpath" "$proc" || die 3 "patching $proc failed"
		/^void wait_stub_done\(int pid\)$/ {
			print "/* slowpath (lab/uml-patches.sh): the FP state a host process"
			print " * holds is no longer known (-1: no process's is) */"
			print "extern void slowpath_fp_forget(int pid);"
			print ""
		}
		{ print }
		/^\terr = ptrace\(PTRACE_CONT, pid, 0, SIGSEGV\);$/ { print "\tslowpath_fp_forget(pid);" }
		/^\tpid = clone\(userspace_tramp, / || /^\tpid = data->parent_err;$/ { print "\tslowpath_fp_forget(-1);" }
	AWK
}
