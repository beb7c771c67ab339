#include "attn_ui/explorer/mask_selector.h"

#include <QCheckBox>
#include <QGridLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>

#include "attn/masks/mask.h"
#include "attn_ui/common/core_text.h"

namespace attn::ui {
namespace {

// Core's one-line descriptions as tooltips: a sentence with a capital and a stop.
QString sentence(QString s) {
  if (s.isEmpty()) return s;
  s[0] = s[0].toUpper();
  if (!s.endsWith('.') && !s.endsWith(QChar(0x3002))) s += '.';  // 0x3002: the Chinese full stop
  return s;
}

QString paramText(const QWidget* w) {
  if (const auto* spin = qobject_cast<const QSpinBox*>(w)) return QString::number(spin->value());
  if (const auto* edit = qobject_cast<const QLineEdit*>(w)) return edit->text().trimmed();
  return {};
}

void setParamText(QWidget* w, const QString& text) {
  if (auto* spin = qobject_cast<QSpinBox*>(w)) {
    bool ok = false;
    const int v = text.toInt(&ok);
    if (ok) spin->setValue(v);
  } else if (auto* edit = qobject_cast<QLineEdit*>(w)) {
    edit->setText(text);
  }
}

}  // namespace

MaskSelector::MaskSelector(QWidget* parent) : QWidget(parent), advanced_(new QLineEdit(this)) {
  auto* grid = new QGridLayout(this);
  grid->setContentsMargins(0, 0, 0, 0);
  grid->setHorizontalSpacing(4);
  grid->setVerticalSpacing(2);
  int r = 0;
  for (const attn::MaskFamilyInfo& f : attn::maskFamilies()) {
    if (f.name == "none") continue;  // none = nothing checked
    Row row;
    row.name = qs(f.name);
    row.check = new QCheckBox(coreText(f.title), this);
    QString tip = sentence(coreText(f.description));
    if (f.restricts) {
      tip.chop(1);
      tip += tr("; with other masks checked it removes cells from what they allow.");
    }
    row.check->setToolTip(tip);
    row.check->setObjectName(QStringLiteral("mask_") + row.name);
    grid->addWidget(row.check, r, 0);
    int col = 1;
    for (const attn::MaskParamInfo& p : f.params) {
      const QString name = qs(p.name), def = qs(p.defaultValue);
      bool isInt = false;
      def.toInt(&isInt);
      QWidget* w = nullptr;
      if (isInt && !name.contains(',')) {
        auto* spin = new QSpinBox(this);
        // 0 is allowed on purpose: core says why a window of 0 is wrong.
        spin->setRange(0, 1 << 30);
        spin->setValue(def.toInt());
        connect(spin, &QSpinBox::valueChanged, this, [this, check = row.check] {
          if (syncing_) return;
          check->setChecked(true);  // touching a parameter means using the family
          rowsChanged();
        });
        w = spin;
      } else {
        auto* edit = new QLineEdit(def, this);
        edit->setPlaceholderText(name == QLatin1String("LEN") ? tr("from pad tokens") : name);
        edit->setMaximumWidth(name.contains(',') ? 120 : 64);
        connect(edit, &QLineEdit::editingFinished, this, [this, edit, check = row.check] {
          if (syncing_ || !edit->isModified()) return;
          edit->setModified(false);
          check->setChecked(true);
          rowsChanged();
        });
        w = edit;
      }
      w->setToolTip(sentence(coreText(p.description)));
      auto* label = new QLabel(name, this);
      label->setToolTip(w->toolTip());
      label->setBuddy(w);
      grid->addWidget(label, r, col++, Qt::AlignRight);
      grid->addWidget(w, r, col++);
      row.params.push_back(w);
    }
    connect(row.check, &QCheckBox::toggled, this, [this] {
      if (!syncing_) rowsChanged();
    });
    rows_.push_back(std::move(row));
    ++r;
  }
  auto* rule = new QLabel(tr("Checked patterns join (union); causal and padding then remove cells."), this);
  rule->setWordWrap(true);
  rule->setStyleSheet(QStringLiteral("color: palette(mid);"));
  rule->setToolTip(tr("Composition rule: a cell is kept if any checked pattern keeps it and every checked "
                      "restriction (causal, padding) keeps it."));
  grid->addWidget(rule, r++, 0, 1, 5);
  auto* specLabel = new QLabel(tr("Spec"), this);
  advanced_->setText(QStringLiteral("none"));
  advanced_->setToolTip(tr("The mask as the command line writes it (e.g. causal+window:4); edit it and press "
                           "Enter, and the rows above follow."));
  specLabel->setToolTip(advanced_->toolTip());
  specLabel->setBuddy(advanced_);
  grid->addWidget(specLabel, r, 0, Qt::AlignRight);
  grid->addWidget(advanced_, r, 1, 1, 4);
  grid->setColumnStretch(0, 1);
  connect(advanced_, &QLineEdit::editingFinished, this, [this] {
    if (!advanced_->isModified()) return;
    advanced_->setModified(false);
    advancedChanged();
  });
}

QString MaskSelector::specText() const {
  const QString s = advanced_->text().trimmed();
  return s.isEmpty() ? QStringLiteral("none") : s;
}

QStringList MaskSelector::familyNames() const {
  QStringList names;
  for (const Row& r : rows_) names << r.name;
  return names;
}

const MaskSelector::Row* MaskSelector::row(const QString& family) const {
  for (const Row& r : rows_)
    if (r.name == family) return &r;
  return nullptr;
}

QCheckBox* MaskSelector::familyCheck(const QString& family) const {
  const Row* r = row(family);
  return r ? r->check : nullptr;
}

QWidget* MaskSelector::paramWidget(const QString& family, int index) const {
  const Row* r = row(family);
  return r && index >= 0 && index < static_cast<int>(r->params.size()) ? r->params[static_cast<size_t>(index)]
                                                                       : nullptr;
}

void MaskSelector::setParam(const QString& family, int index, const QString& value) {
  QWidget* w = paramWidget(family, index);
  if (!w) return;
  if (auto* edit = qobject_cast<QLineEdit*>(w)) {
    edit->setText(value);
    edit->setModified(true);
    emit edit->editingFinished();
  } else {
    setParamText(w, value);
  }
}

QString MaskSelector::rowTerm(const Row& r) const {
  QStringList args;
  bool anyArg = false;
  for (const QWidget* w : r.params) {
    args << paramText(w);
    anyArg |= !args.back().isEmpty();
  }
  // An empty optional parameter (padding's LEN) means the family's plain form.
  return anyArg ? r.name + ':' + args.join(',') : r.name;
}

void MaskSelector::rowsChanged() {
  QStringList terms;
  for (const Row& r : rows_)
    if (r.check->isChecked()) terms << rowTerm(r);
  advanced_->setText(terms.isEmpty() ? QStringLiteral("none") : terms.join('+'));
  emit edited();
}

void MaskSelector::advancedChanged() {
  setSpecText(advanced_->text());
  emit edited();
}

void MaskSelector::setSpecText(const QString& spec) {
  auto mask = attn::Mask::parse(spec.toStdString());
  if (!mask) {  // shown by the configuration panel (core's message); the rows stay as they are
    advanced_->setText(spec);
    return;
  }
  syncing_ = true;
  // The canonical text has one "name[:a,b]" per term; a family's single
  // parameter takes every argument ("global:0,5" -> "0,5").
  const QString canonical = QString::fromStdString(mask->spec());
  for (Row& r : rows_) r.check->setChecked(false);
  if (!mask->isNone()) {
    for (const QString& term : canonical.split('+')) {
      const QString name = term.section(':', 0, 0);
      const QString args = term.section(':', 1);
      const Row* r = row(name);
      if (!r) continue;
      r->check->setChecked(true);
      if (r->params.size() == 1) {
        setParamText(r->params[0], args);
      } else {
        const QStringList parts = args.split(',');
        for (size_t i = 0; i < r->params.size() && static_cast<qsizetype>(i) < parts.size(); ++i)
          setParamText(r->params[i], parts[static_cast<qsizetype>(i)]);
      }
    }
  }
  advanced_->setText(canonical);
  advanced_->setModified(false);
  syncing_ = false;
}

}  // namespace attn::ui
