#include "attn_ui/explorer/input_panel.h"

#include <QAction>
#include <QColor>
#include <QComboBox>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPixmap>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>
#include <algorithm>

#include "attn/io/input_file.h"
#include "attn/models/model.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/pretrained/model_info_box.h"
#include "attn_ui/pretrained/model_text.h"
#include "attn_ui/spatial/image_loader.h"
#include "attn_ui/window/examples.h"

namespace attn::ui {

InputPanel::InputPanel(ExplorerModel* model, QWidget* parent)
    : QWidget(parent),
      model_(model),
      query_(new QPlainTextEdit(this)),
      key_(new QLineEdit(this)),
      tokenizer_(new QComboBox(this)),
      examples_(new QComboBox(this)),
      loaded_(new QListWidget(this)),
      source_(new QComboBox(this)),
      closeFile_(new QPushButton(tr("Back to Text"), this)),
      modelBox_(new ModelInfoBox(model, this)),
      imageRow_(new QGroupBox(tr("Image"), this)),
      imageThumb_(new QLabel(imageRow_)),
      imageText_(new QLabel(imageRow_)),
      openImage_(new QPushButton(tr("Open Image…"), imageRow_)) {
  query_->setPlaceholderText(tr("Type or paste a sentence…"));
  query_->setToolTip(tr("The query sequence; every edit recomputes attention."));
  query_->setMaximumHeight(110);
  // Two lines at least, not a scroll area's default: the left column then gives way to a bottom
  // dock (Translation, Generate) on a 768-pixel screen.
  const int twoLines = 2 * fontMetrics().lineSpacing() + 12;
  query_->setMinimumHeight(twoLines);
  key_->setPlaceholderText(tr("(empty: self-attention)"));
  key_->setToolTip(tr("A second sequence to attend to (cross-attention); leave empty for self-attention."));
  key_->setClearButtonEnabled(true);
  tokenizer_->addItem(tr("Words and punctuation"), "words");
  tokenizer_->setToolTip(tr("How text is split into tokens: on whitespace, with each punctuation mark its own token."));
  examples_->addItem(tr("Choose an example…"), QString());
  for (const auto& e : bundledExamples()) examples_->addItem(e.title, e.text);
  examples_->setToolTip(tr("Replace the query text with a bundled example sentence."));
  loaded_->setToolTip(tr("What is loaded: each array with its dtype, shape and use, and the views it feeds."));
  loaded_->setMaximumHeight(90);
  loaded_->setMinimumHeight(twoLines);
  source_->addItem(tr("Computed from the file (current mechanism)"));
  source_->addItem(tr("The file's attention weights ('attn')"));
  source_->setToolTip(tr("The file has both inputs and precomputed weights: compute attention from q/k/v or x "
                         "with the configuration, or show its 'attn' as it is, layer by layer."));
  closeFile_->setToolTip(tr("Forget the loaded file and attend over the text above again."));
  imageThumb_->setFixedSize(72, 72);
  imageThumb_->setAlignment(Qt::AlignCenter);
  imageText_->setWordWrap(true);
  imageText_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  openImage_->setObjectName(QStringLiteral("InputOpenImageButton"));
  openImage_->setToolTip(tr("Open another picture for the vision model (File > Open Image…)."));
  auto* imageLayout = new QGridLayout(imageRow_);
  imageLayout->addWidget(imageThumb_, 0, 0, 2, 1, Qt::AlignTop);
  imageLayout->addWidget(imageText_, 0, 1);
  imageLayout->addWidget(openImage_, 1, 1, Qt::AlignLeft | Qt::AlignBottom);
  imageLayout->setColumnStretch(1, 1);

  keyTip_ = key_->toolTip();
  keyPlaceholder_ = key_->placeholderText();
  tokenizerTip_ = tokenizer_->toolTip();

  // The model's facts and a vision model's image span the panel above the text rows' form.
  auto* column = new QVBoxLayout(this);
  column->addWidget(modelBox_);
  column->addWidget(imageRow_);
  imageRow_->hide();
  form_ = new QFormLayout;
  column->addLayout(form_);
  column->addStretch(1);
  auto* form = form_;
  form->addRow(tr("Example"), examples_);
  form->addRow(tr("Query text"), query_);
  form->addRow(tr("Key text"), key_);
  form->addRow(tr("Tokenizer"), tokenizer_);
  form->addRow(tr("Loaded"), loaded_);
  auto* fileRow = new QHBoxLayout;
  fileRow->addWidget(source_, 1);
  fileRow->addWidget(closeFile_);
  form->addRow(QString(), fileRow);

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
  connect(source_, &QComboBox::activated, this, [this](int i) { model_->setPrecomputedPreferred(i == 1); });
  connect(closeFile_, &QPushButton::clicked, model_, &ExplorerModel::clearLoadedInput);
  connect(model_, &ExplorerModel::inputChanged, this, &InputPanel::refreshLoaded);
  connect(model_, &ExplorerModel::resultChanged, this, &InputPanel::refreshLoaded);
  connect(model_, &ExplorerModel::modelChanged, this, &InputPanel::followModel);
  connect(model_, &ExplorerModel::currentLayerChanged, this, &InputPanel::refreshLoaded);
  connect(model_, &ExplorerModel::inputChanged, this, &InputPanel::refreshImage);
  // A text set elsewhere (the Generate dock's sequence): shown here without being sent back.
  connect(model_, &ExplorerModel::inputChanged, this, [this] {
    if (model_->hasLoadedInput() || query_->toPlainText() == model_->text()) return;
    const QSignalBlocker block(query_);
    query_->setPlainText(model_->text());
  });
}

bool InputPanel::showsTextInput() const { return form_->isRowVisible(query_); }

void InputPanel::followModel() {
  const auto m = model_->modelPtr();
  // A vision transformer reads pixels: the text rows would suggest that typing changes its input.
  const bool vision = model_->hasVisionModel();
  for (QWidget* row : {static_cast<QWidget*>(examples_), static_cast<QWidget*>(query_),
                       static_cast<QWidget*>(key_), static_cast<QWidget*>(tokenizer_)})
    form_->setRowVisible(row, !vision);
  imageRow_->setVisible(vision);
  refreshImage();
  tokenizer_->setEnabled(!m);
  key_->setEnabled(!m || m->info().family == attn::models::Family::Bert);
  if (!m) {
    tokenizer_->setItemText(0, tr("Words and punctuation"));
    tokenizer_->setToolTip(tokenizerTip_);
    key_->setToolTip(keyTip_);
    key_->setPlaceholderText(keyPlaceholder_);
    return;
  }
  const auto& info = m->info();
  tokenizer_->setItemText(0, tr("%1 (the model's own)").arg(QString::fromStdString(info.tokenizerKind)));
  tokenizer_->setToolTip(tr("Fixed by the model: %1 splits text with its own tokenizer (%2), exactly as it was trained.")
                             .arg(QString::fromStdString(info.name), QString::fromStdString(info.tokenizerKind)));
  key_->setToolTip(fixedByModel(info).keyText);
  key_->setPlaceholderText(info.family == attn::models::Family::Bert ? tr("(empty: one segment)")
                                                                     : tr("(not used by this model)"));
}

void InputPanel::setQueryText(const QString& text) {
  if (query_->toPlainText() != text) query_->setPlainText(text);
  model_->setText(text);
}

void InputPanel::refreshLoaded() {
  loaded_->clear();
  // With a model, its box says what is loaded (tokens, layer): the list would repeat it.
  form_->setRowVisible(loaded_, !model_->hasModel());
  const attn::LoadedInput* file = model_->loadedFile();
  const bool both = file && file->hasEngineInput() && file->hasAttention();
  source_->setVisible(both);
  source_->setCurrentIndex(model_->precomputedPreferred() ? 1 : 0);
  closeFile_->setVisible(file != nullptr);
  if (file) {
    // The core's own table (as `attnscope-cli info` prints it), one line per
    // row, under the file's name: arrays with dtype, shape and use; the views fed.
    loaded_->setMaximumHeight(220);
    auto* title = new QListWidgetItem(tr("%1 (%2)").arg(QFileInfo(model_->loadedSource()).fileName(),
                                                         QString::fromStdString(file->format)));
    QFont bold = title->font();
    bold.setBold(true);
    title->setFont(bold);
    title->setToolTip(model_->loadedSource());
    loaded_->addItem(title);
    const QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    const QStringList lines = QString::fromStdString(attn::describeInput(*file)).split(QLatin1Char('\n'));
    for (qsizetype i = 1; i < lines.size(); ++i) {  // line 0 repeats the path
      if (lines[i].isEmpty()) continue;
      auto* item = new QListWidgetItem(lines[i], loaded_);
      item->setFont(mono);
      item->setToolTip(lines[i].trimmed());
      if (lines[i].startsWith(QLatin1String("warning:"))) item->setForeground(QColor(0xb0, 0x60, 0x00));
    }
    if (model_->showsPrecomputed() && model_->numLayers() > 0)
      loaded_->addItem(tr("showing 'attn': layer %1 of %2 (pick a tile in the head grid)")
                           .arg(model_->currentLayer() + 1)
                           .arg(model_->numLayers()));
    return;
  }
  loaded_->setMaximumHeight(90);
  if (model_->hasModel()) return;
  if (model_->hasResult()) {
    const auto& r = model_->result();
    loaded_->addItem(tr("text: %1 query tokens").arg(r.nq()));
    if (!model_->keyText().trimmed().isEmpty()) loaded_->addItem(tr("key text: %1 tokens").arg(r.nk()));
    loaded_->addItem(tr("embeddings: seeded, [%1, %2]").arg(r.nq()).arg(model_->spec().dModel));
  }
}

void InputPanel::refreshImage() {
  const auto m = model_->modelPtr();
  const auto image = model_->modelImage();
  if (!model_->hasVisionModel() || !image) {
    imageThumb_->clear();
    imageText_->clear();
    return;
  }
  const QImage picture = imageFromPixels(*image);
  imageThumb_->setPixmap(
      QPixmap::fromImage(picture.scaled(imageThumb_->size(), Qt::KeepAspectRatio, Qt::SmoothTransformation)));
  const QString source = model_->modelImageSource();
  const QString name = QFileInfo(source).exists() ? QFileInfo(source).fileName() : source;
  const auto& info = m->info();
  // What the model's image processor makes of this picture (DINOv2 takes any crop: its
  // positions are interpolated), so the grid shown is the one the model reads.
  const auto [seenH, seenW] = attn::vision::outputSize(m->imageProcessor(), image->height, image->width);
  const int patch = std::max(info.patchSize, 1);
  // One arg() for all: chained arg() calls would also fill a "%2" inside the file's name.
  imageText_->setText(tr("<b>%1</b><br>%2 × %3 px, %4<br>seen as %5 × %6 px: %7 × %8 patches of %9 px")
                          .arg(name.toHtmlEscaped(), QString::number(image->width),
                               QString::number(image->height),
                               image->channels == 1 ? tr("grey") : tr("colour"), QString::number(seenW),
                               QString::number(seenH), QString::number(seenW / patch),
                               QString::number(seenH / patch), QString::number(info.patchSize)));
  imageText_->setToolTip(source);
}

}  // namespace attn::ui
