#include "attn_ui/input_panel.h"

#include <QAction>
#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>

#include "attn_ui/examples.h"
#include "attn_ui/explorer_model.h"

namespace attn::ui {

InputPanel::InputPanel(ExplorerModel* model, QWidget* parent)
    : QWidget(parent),
      model_(model),
      query_(new QPlainTextEdit(this)),
      key_(new QLineEdit(this)),
      tokenizer_(new QComboBox(this)),
      examples_(new QComboBox(this)),
      loaded_(new QListWidget(this)) {
  query_->setPlaceholderText(tr("Type or paste a sentence…"));
  query_->setToolTip(tr("The query sequence; every edit recomputes attention."));
  query_->setMaximumHeight(110);
  key_->setPlaceholderText(tr("(empty: self-attention)"));
  key_->setToolTip(tr("A second sequence to attend to (cross-attention); leave empty for self-attention."));
  key_->setClearButtonEnabled(true);
  tokenizer_->addItem(tr("Words and punctuation"), "words");
  tokenizer_->setToolTip(tr("How text is split into tokens: on whitespace, with each punctuation mark its own token."));
  examples_->addItem(tr("Choose an example…"), QString());
  for (const auto& e : bundledExamples()) examples_->addItem(e.title, e.text);
  examples_->setToolTip(tr("Replace the query text with a bundled example sentence."));
  loaded_->setToolTip(tr("What is loaded and the shape of each array."));
  loaded_->setMaximumHeight(90);

  auto* form = new QFormLayout(this);
  form->addRow(tr("Example"), examples_);
  form->addRow(tr("Query text"), query_);
  form->addRow(tr("Key text"), key_);
  form->addRow(tr("Tokenizer"), tokenizer_);
  form->addRow(tr("Loaded"), loaded_);

  auto* focus = new QAction(tr("Edit Query Text"), this);
  focus->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));
  focus->setShortcutContext(Qt::WindowShortcut);
  connect(focus, &QAction::triggered, this, [this] {
    query_->setFocus();
    query_->selectAll();
  });
  addAction(focus);

  connect(query_, &QPlainTextEdit::textChanged, this, [this] { model_->setText(query_->toPlainText()); });
  connect(key_, &QLineEdit::textChanged, model_, &ExplorerModel::setKeyText);
  connect(examples_, &QComboBox::activated, this, [this](int i) {
    const QString text = examples_->itemData(i).toString();
    if (!text.isEmpty()) setQueryText(text);
  });
  connect(model_, &ExplorerModel::inputChanged, this, &InputPanel::refreshLoaded);
  connect(model_, &ExplorerModel::resultChanged, this, &InputPanel::refreshLoaded);
}

void InputPanel::setQueryText(const QString& text) {
  if (query_->toPlainText() != text) query_->setPlainText(text);
  model_->setText(text);
}

void InputPanel::refreshLoaded() {
  loaded_->clear();
  if (model_->hasLoadedInput()) {
    loaded_->addItem(model_->loadedSource());
    const auto* in = model_->loadedInput();
    auto shape = [](const attn::Mat& m) { return QStringLiteral("[%1, %2]").arg(m.rows()).arg(m.cols()); };
    if (in->x.size() > 0) loaded_->addItem(QStringLiteral("  x %1").arg(shape(in->x)));
    if (in->xKv.size() > 0) loaded_->addItem(QStringLiteral("  x_kv %1").arg(shape(in->xKv)));
    if (!in->q.empty())
      loaded_->addItem(QStringLiteral("  q, k, v: %1 heads, q %2").arg(in->q.size()).arg(shape(in->q.front())));
    if (!in->queryTokens.empty()) loaded_->addItem(tr("  %1 tokens").arg(in->queryTokens.size()));
    return;
  }
  if (model_->hasResult()) {
    const auto& r = model_->result();
    loaded_->addItem(tr("text: %1 query tokens").arg(r.nq()));
    if (!model_->keyText().trimmed().isEmpty()) loaded_->addItem(tr("key text: %1 tokens").arg(r.nk()));
    loaded_->addItem(tr("embeddings: seeded, [%1, %2]").arg(r.nq()).arg(model_->spec().dModel));
  }
}

}  // namespace attn::ui
