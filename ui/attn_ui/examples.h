#pragma once
#include <QString>

namespace attn::ui {

/// The bundled example sentence the window opens on.
QString exampleSentence();

}  // namespace attn::ui
