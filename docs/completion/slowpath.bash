# bash completion for slowpath(1), installed by `make install`. Commands
# come from `slowpath --help`, each command's options from
# `slowpath COMMAND --help`, so this file never goes out of date.
_slowpath() {
	local cur=${COMP_WORDS[COMP_CWORD]} cword=$COMP_CWORD
	local prog=${COMP_WORDS[0]} cmd i
	# -v/--verbose may come before the command
	for ((i = 1; i < cword; i++)); do
		case ${COMP_WORDS[i]} in
		-v|--verbose) continue ;;
		*) cmd=${COMP_WORDS[i]}; break ;;
		esac
	done
	if [ -z "${cmd:-}" ]; then
		COMPREPLY=($(compgen -W "$("$prog" --help 2>/dev/null |
			awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')" \
			-- "$cur"))
		return
	fi
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$("$prog" "$cmd" --help 2>&1 |
			grep -oE '^[[:space:]]+--[A-Za-z0-9_-]+' | tr -d '[:space:]' |
			sed 's/--/ --/g')" -- "$cur"))
		return
	fi
	case $cmd:$((cword - i)) in
	lab:1) COMPREPLY=($(compgen -W "start stop status fetch run shell engine" -- "$cur")) ;;
	selector:1|delay:1) COMPREPLY=($(compgen -W "set" -- "$cur")) ;;
	selector:2) COMPREPLY=($(compgen -W "st hst ql rr numa qd" -- "$cur")) ;;
	topo:1) COMPREPLY=($(compgen -W "check show table list" -- "$cur")) ;;
	netem:1) COMPREPLY=($(compgen -W "set change show clear" -- "$cur")) ;;
	reproduce:1) COMPREPLY=($(compgen -W "hst-vs-st-2020 hst-cover-2020 hst-bio-2022" -- "$cur")) ;;
	up:1|topo:2)
		COMPREPLY=($(compgen -W "$("$prog" topo list 2>/dev/null | awk '{ print $1 }')" -- "$cur"))
		[ ${#COMPREPLY[@]} -eq 0 ] && COMPREPLY=($(compgen -f -- "$cur")) ;;
	*) COMPREPLY=($(compgen -f -- "$cur")) ;;
	esac
}
complete -F _slowpath slowpath
