#include "attn_ui/window/examples.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

namespace attn::ui {

QString exampleSentence() {
  QFile f(QStringLiteral(":/examples/english.txt"));
  if (!f.open(QIODevice::ReadOnly)) return QStringLiteral("The cat sat on the mat.");
  return QString::fromUtf8(f.readAll()).trimmed();
}

QList<Example> bundledExamples() {
  QList<Example> out;
  const QDir dir(QStringLiteral(":/examples"));
  for (const QFileInfo& fi : dir.entryInfoList(QDir::Files, QDir::Name)) {
    if (fi.suffix() != QLatin1String("txt")) continue;  // text examples only; tensors come via File > Open
    QFile f(fi.filePath());
    if (!f.open(QIODevice::ReadOnly)) continue;
    out.push_back({fi.completeBaseName(), QString::fromUtf8(f.readAll()).trimmed()});
  }
  return out;
}

}  // namespace attn::ui
