#pragma once
#include <QList>
#include <QString>

namespace attn::ui {

/// The bundled example sentence the window opens on.
QString exampleSentence();

struct Example {
  QString title;  // file name without extension
  QString text;
};
/// Every bundled example (resources/examples/*, compiled in).
QList<Example> bundledExamples();

}  // namespace attn::ui
