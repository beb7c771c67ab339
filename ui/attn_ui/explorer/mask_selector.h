#pragma once
// The mask part of the configuration: one checkable row per family from
// attn::maskFamilies() with that family's parameters, and the spec text as the
// command line takes it ("advanced"), kept in sync both ways. Checked rows are
// joined with '+', so composing masks is checking several (core's rule: the
// patterns are a union, causal and padding restrict it). The spec text is what
// the configuration uses; core parses it and reports bad parameters.
#include <QString>
#include <QWidget>
#include <vector>

class QCheckBox;
class QLineEdit;

namespace attn::ui {

class MaskSelector : public QWidget {
  Q_OBJECT
 public:
  explicit MaskSelector(QWidget* parent = nullptr);

  /// The spec the controls describe, e.g. "causal+window:4" ("none" when
  /// nothing is checked). It may not parse: the advanced field takes any text.
  QString specText() const;
  /// Sets every control from `spec`; a spec core cannot parse is put in the
  /// advanced field only (the rows keep their state). Emits nothing.
  void setSpecText(const QString& spec);

  /// Family names in row order (maskFamilies() without "none").
  QStringList familyNames() const;
  QCheckBox* familyCheck(const QString& family) const;
  /// The widget of parameter `index` of `family` (a QSpinBox or QLineEdit), or null.
  QWidget* paramWidget(const QString& family, int index) const;
  /// Sets a parameter as the user would (checks its family, emits edited()).
  void setParam(const QString& family, int index, const QString& value);
  QLineEdit* advancedEdit() const { return advanced_; }

 signals:
  /// The user changed a row, a parameter or the advanced text.
  void edited();

 private:
  struct Row {
    QString name;
    QCheckBox* check = nullptr;
    std::vector<QWidget*> params;
  };
  const Row* row(const QString& family) const;
  QString rowTerm(const Row& r) const;
  void rowsChanged();
  void advancedChanged();

  std::vector<Row> rows_;
  QLineEdit* advanced_;
  bool syncing_ = false;
};

}  // namespace attn::ui
