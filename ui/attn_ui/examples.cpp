#include "attn_ui/examples.h"

#include <QFile>

namespace attn::ui {

QString exampleSentence() {
  QFile f(QStringLiteral(":/examples/english.txt"));
  if (!f.open(QIODevice::ReadOnly)) return QStringLiteral("The cat sat on the mat.");
  return QString::fromUtf8(f.readAll()).trimmed();
}

}  // namespace attn::ui
