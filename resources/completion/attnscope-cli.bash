# bash completion for attnscope-cli. Commands, options and option values are
# read from the program's own --help, so they follow every version.
_attnscope_cli() {
  local prog="${COMP_WORDS[0]}" cur="${COMP_WORDS[COMP_CWORD]}" prev="" sub="" i help
  [ "$COMP_CWORD" -gt 0 ] && prev="${COMP_WORDS[COMP_CWORD-1]}"
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "${COMP_WORDS[i]}" in -*) ;; *) sub="${COMP_WORDS[i]}"; break ;; esac
  done
  COMPREPLY=()
  if [ -z "$sub" ]; then
    if [[ "$cur" == -* ]]; then
      COMPREPLY=($(compgen -W "--help --version" -- "$cur"))
    else
      help="$("$prog" --help 2>/dev/null)"
      COMPREPLY=($(compgen -W "$(printf '%s\n' "$help" | sed -n '/^Subcommands:/,/^$/p' |
                                  awk 'NR > 1 && /^  [a-z]/ { print $1 }')" -- "$cur"))
    fi
    return 0
  fi
  help="$("$prog" "$sub" --help 2>/dev/null)"
  if [[ "$prev" == -* ]]; then
    # "--mask TEXT:{none,causal}": offer the listed values.
    local line choices
    line="$(printf '%s\n' "$help" | grep -E "(^|[ ,])${prev}( |$)" | head -n 1)"
    choices="$(printf '%s\n' "$line" | sed -n 's/.*:{\([^}]*\)}.*/\1/p' | tr ',' ' ')"
    if [ -n "$choices" ]; then
      COMPREPLY=($(compgen -W "$choices" -- "$cur"))
      return 0
    fi
  fi
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$(printf '%s\n' "$help" | grep -oE '(^|[ ,])--?[A-Za-z][A-Za-z0-9-]*' | tr -d ' ,' | sort -u)" -- "$cur"))
  else
    COMPREPLY=($(compgen -f -- "$cur"))
    compopt -o filenames 2>/dev/null
  fi
  return 0
}
complete -F _attnscope_cli attnscope-cli
