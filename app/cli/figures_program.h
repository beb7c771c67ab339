#pragma once
// attnscope-cli is built without Qt, so that the commands which draw nothing
// start without loading it. A command that draws a figure, or reads
// an image only Qt decodes, hands its whole command line over to
// attnscope-cli-figures: the same commands built with the renderer, installed
// next to the engine libraries (app/cli/CMakeLists.txt).
#include <string>

namespace attn::cli {

/// The command line main() was given (addCommands records it).
void rememberCommandLine(int argc, char** argv);

/// Whether attnscope-cli-figures is there to hand over to (a build without the
/// GUI has none, and its commands fail where they would draw, as before).
bool figuresProgramFound();

/// Replaces this process with attnscope-cli-figures on the same command line
/// (exec: its output and exit status are the command's). Returns only if there
/// is none, or it cannot run: then the one-line error "<command>: this build
/// has no figure renderer ..." (+ `hint`), exit status 1. ATTNSCOPE_CLI_FIGURES
/// names the program to run instead of the one found next to this one.
int handOverToFigures(const std::string& command, const std::string& hint = {});

}  // namespace attn::cli
