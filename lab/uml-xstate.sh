# shellcheck shell=bash
# Sourced by lab/uml-build.sh and tests/host/131: our one transformation
# of UML's own source. The caller defines die CODE MESSAGE.

# uml_patch_xstate SRC: UML 6.1 hands the host a fixed 2696-byte XSAVE
# buffer when it switches FP state through ptrace. A host kernel with
# AMX (XSAVE of ~11 KB) takes only a buffer of its whole size and fails
# every switch (EFAULT, "ptrace set fp regs failed", init killed). Our
# transformation, like the bucket_shift one: room for 16 KiB, and the
# size the host itself reports at boot on every get and set. Later
# kernels size it from the host the same way. The declaration is static
# from 6.12 on; a source it does not fit is refused before any change.
uml_patch_xstate() {
	local regs=$1/arch/x86/um/os-Linux/registers.c offs=$1/arch/x86/um/user-offsets.c n
	n=$(grep -c 'DEFINE_LONGS(HOST_FP_SIZE, 2696);' "$offs")
	[ "$n" -eq 1 ] || die 3 "$offs: want one 'DEFINE_LONGS(HOST_FP_SIZE, 2696);', found $n; the xstate patch does not fit"
	n=$(grep -cP '^\t\tiov.iov_len = FP_SIZE \* sizeof\(unsigned long\);$' "$regs")
	[ "$n" -eq 2 ] || die 3 "$regs: want the two get/set buffer lengths, found $n; the xstate patch does not fit"
	n=$(grep -cP '^\t\thave_xstate_support = 1;$' "$regs")
	[ "$n" -eq 1 ] || die 3 "$regs: want one 'have_xstate_support = 1;', found $n; the xstate patch does not fit"
	n=$(grep -cE '^(static )?int have_xstate_support;$' "$regs")
	[ "$n" -eq 1 ] || die 3 "$regs: want one 'int have_xstate_support;', found $n; the xstate patch does not fit"
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
