#include "attn_ui/system/about_dialog.h"

#include <QApplication>
#include <QClipboard>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

#include "attn/engine/system_info.h"

namespace attn::ui {

QString AboutDialog::reportText() {
  const std::vector<std::pair<std::string, std::string>> extra{
      {"AttnScope", QApplication::applicationVersion().toStdString()},
      {"Qt", QStringLiteral("%1 (built with %2)").arg(QString::fromLatin1(qVersion()), QStringLiteral(QT_VERSION_STR)).toStdString()}};
  return QString::fromStdString(describeSystem(systemInfo(), extra));
}

AboutDialog::AboutDialog(QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("About AttnScope"));
  const SystemInfo info = systemInfo();
  auto* layout = new QVBoxLayout(this);
  auto* title = new QLabel(tr("<b>AttnScope %1</b> — an attention visualizer.").arg(QApplication::applicationVersion()));
  layout->addWidget(title);

  auto* form = new QFormLayout;
  auto add = [&](const QString& name, const QString& value) {
    auto* v = new QLabel(value);
    v->setTextInteractionFlags(Qt::TextSelectableByMouse);
    v->setWordWrap(true);
    form->addRow(name, v);
  };
  QString level = QString::fromStdString(info.kernelLevel);
  if (!info.kernelLevelWarning.empty())
    level += QStringLiteral(" (%1)").arg(QString::fromStdString(info.kernelLevelWarning));
  else if (info.kernelLevelForced)
    level += QStringLiteral(" (%1)").arg(tr("forced by ATTNSCOPE_CPU"));
  else
    level += QStringLiteral(" (%1)").arg(tr("the highest installed level this CPU supports"));
  add(tr("Kernel level:"), level);
  add(tr("Compiled for:"), QString::fromStdString(info.compiledLevel));
  add(tr("Threads:"), QString::number(info.threads));
  QStringList backends;
  for (const auto& b : info.backends) backends << QString::fromStdString(b);
  QString backendText = backends.join(QStringLiteral(", "));
  if (!info.missingBackends.empty()) {
    QStringList missing;
    for (const auto& b : info.missingBackends) missing << QString::fromStdString(b);
    backendText += QStringLiteral(" ") + tr("(unavailable: %1)").arg(missing.join(QStringLiteral("; ")));
  }
  add(tr("Backends:"), backendText);
  add(tr("Qt:"), QString::fromLatin1(qVersion()));
  add(tr("Eigen:"), QStringLiteral("%1 (%2)").arg(QString::fromStdString(info.eigenVersion),
                                                  QString::fromStdString(info.eigenSimd)));
  layout->addLayout(form);

  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  auto* copy = buttons->addButton(tr("Copy for a Bug Report"), QDialogButtonBox::ActionRole);
  copy->setObjectName(QStringLiteral("copyReport"));
  connect(copy, &QPushButton::clicked, this, [] { QApplication::clipboard()->setText(reportText()); });
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  layout->addWidget(buttons);
}

}  // namespace attn::ui
