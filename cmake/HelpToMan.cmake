# Writes a man page from a program's own --help, so the page cannot drift from
# the options. Run at build time (cmake -P) by cmake/Install.cmake:
#   -DEXE=<program> -DNAME=<name> -DVERSION=<v> -DSUMMARY=<one line>
#   -DSUBCOMMANDS=ON|OFF  (ON: one section per subcommand, from "<name> <sub> --help")
#   -DSEE_ALSO=<name(1),...> -DOUT=<file.1>
# QT_QPA_PLATFORM=offscreen lets a Qt program print its help without a display.
set(ENV{QT_QPA_PLATFORM} offscreen)
set(ENV{LC_ALL} C)

function(run_help out)
  execute_process(COMMAND ${EXE} ${ARGN} --help OUTPUT_VARIABLE text ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${EXE} ${ARGN} --help failed (${rc}): ${err}")
  endif()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# roff: escape backslashes, protect lines starting with . or '
function(roff_escape out text)
  string(REPLACE "\\" "\\e" text "${text}")
  string(REPLACE "-" "\\-" text "${text}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

function(preformatted out text)
  roff_escape(text "${text}")
  string(STRIP "${text}" text)
  set(${out} ".nf\n${text}\n.fi\n" PARENT_SCOPE)
endfunction()

run_help(top)
string(TOUPPER "${NAME}" upper)
string(TIMESTAMP year "%Y" UTC)
set(page ".\\\" Generated from '${NAME} --help' by cmake/HelpToMan.cmake; do not edit.\n")
string(APPEND page ".TH ${upper} 1 \"\" \"${NAME} ${VERSION}\" \"User Commands\"\n")
roff_escape(summary_e "${SUMMARY}")
roff_escape(name_e "${NAME}")
string(APPEND page ".SH NAME\n${name_e} \\- ${summary_e}\n")

set(subs "")
if(SUBCOMMANDS)
  # CLI11 lists them under "Subcommands:" as "  name   description".
  string(REGEX MATCH "Subcommands:\n(.*)" block "${top}")
  string(REPLACE "\n" ";" lines "${CMAKE_MATCH_1}")
  foreach(line IN LISTS lines)
    if(line MATCHES "^  ([a-z][a-z0-9-]*)( |$)")
      list(APPEND subs "${CMAKE_MATCH_1}")
    elseif(NOT line MATCHES "^ ")
      break()
    endif()
  endforeach()
  if(NOT subs)
    message(FATAL_ERROR "${NAME} --help lists no subcommands")
  endif()
  string(REPLACE ";" "|" alts "${subs}")
  string(APPEND page ".SH SYNOPSIS\n.B ${name_e}\n{${alts}} [\\fIOPTIONS\\fR]\n.br\n.B ${name_e}\n\\-\\-help | \\-\\-version\n")
endif()

string(APPEND page ".SH DESCRIPTION\n")
preformatted(body "${top}")
string(APPEND page "${body}")

if(subs)
  string(APPEND page ".SH COMMANDS\n")
  foreach(sub IN LISTS subs)
    run_help(sub_text ${sub})
    string(APPEND page ".SS ${name_e} ${sub}\n")
    preformatted(body "${sub_text}")
    string(APPEND page "${body}")
  endforeach()
endif()

string(APPEND page ".SH FILES\n")
string(APPEND page "Settings, recent files and the autosaved session follow the XDG base directories: "
                   "\\fI$XDG_CONFIG_HOME/AttnScope/AttnScope.conf\\fR (default \\fI~/.config\\fR) and "
                   "\\fI$XDG_DATA_HOME/AttnScope/AttnScope/\\fR (default \\fI~/.local/share\\fR). "
                   "Bundled examples: \\fI/usr/share/attnscope/examples\\fR.\n")
if(SEE_ALSO)
  string(REPLACE "," ", " see "${SEE_ALSO}")
  string(REGEX REPLACE "([a-z-]+)\\(1\\)" "\\\\fB\\1\\\\fR(1)" see "${see}")
  string(APPEND page ".SH SEE ALSO\n${see}\n")
endif()
file(WRITE "${OUT}" "${page}")
