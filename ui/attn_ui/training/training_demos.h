#pragma once
// The built-in demonstrations (attn::train::demonstrations) in the UI
// language: the core's text is English, so the GUI keeps its own copy of each
// title, explanation and run legend keyed by the demonstration's id, where
// lupdate finds them for the translators. An id the table does not know yet
// shows the core's English text.
#include <QString>

#include "attn/train/demonstrations.h"

namespace attn::ui {

QString demoTitle(const attn::train::Demonstration& demo);
QString demoExplanation(const attn::train::Demonstration& demo);
/// The legend text of run `i` of `demo`.
QString demoRunLabel(const attn::train::Demonstration& demo, int i);
/// True when the table has the demonstration's text (a test checks every id).
bool hasDemoText(const std::string& id);

}  // namespace attn::ui
