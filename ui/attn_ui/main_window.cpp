#include "attn_ui/main_window.h"

#include <QCheckBox>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QStatusBar>
#include <QToolBar>

#include "attn/spec.h"
#include "attn_ui/examples.h"
#include "attn_ui/explorer_model.h"
#include "attn_ui/heatmap_widget.h"

namespace attn::ui {

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent),
      model_(new ExplorerModel(this)),
      heatmap_(new HeatmapWidget(this)),
      text_(new QLineEdit(this)),
      head_(new QSpinBox(this)),
      causal_(new QCheckBox(tr("Causal mask"), this)) {
  setWindowTitle(tr("AttnScope"));
  resize(1100, 800);
  setCentralWidget(heatmap_);
  heatmap_->setColorScaleLabel(tr("weight"));

  auto* bar = addToolBar(tr("Input"));
  bar->setMovable(false);
  bar->addWidget(new QLabel(tr("Text: "), this));
  text_->setToolTip(tr("The sentence to attend over; press Enter to recompute."));
  text_->setMinimumWidth(420);
  bar->addWidget(text_);
  bar->addSeparator();
  bar->addWidget(new QLabel(tr("Head: "), this));
  head_->setToolTip(tr("Which attention head the heatmap shows."));
  head_->setRange(1, 1);
  bar->addWidget(head_);
  bar->addSeparator();
  causal_->setToolTip(tr("Hide future tokens: query i may only attend to keys j <= i."));
  bar->addWidget(causal_);

  status_ = new QLabel(this);
  statusBar()->addWidget(status_, 1);

  connect(text_, &QLineEdit::returnPressed, this, [this] { model_->setText(text_->text()); });
  connect(head_, &QSpinBox::valueChanged, this, [this](int h) { model_->setCurrentHead(h - 1); });
  connect(causal_, &QCheckBox::toggled, model_, &ExplorerModel::setCausal);
  connect(model_, &ExplorerModel::resultChanged, this, &MainWindow::showResult);
  connect(model_, &ExplorerModel::errorOccurred, this,
          [this](const QString& msg) { statusBar()->showMessage(tr("Error: %1").arg(msg), 8000); });

  attn::AttentionSpec spec;
  spec.heads = 4;
  spec.dModel = 64;
  model_->setSpec(spec);
  text_->setText(exampleSentence());
  model_->setText(exampleSentence());
}

void MainWindow::showResult() {
  const auto& res = model_->result();
  head_->setRange(1, res.numHeads());
  head_->setValue(model_->currentHead() + 1);
  const int h = model_->currentHead();
  heatmap_->setMatrix(model_->currentWeights(), model_->queryLabels(), model_->keyLabels(),
                      tr("Head %1 of %2 — %3 — mask: %4")
                          .arg(h + 1)
                          .arg(res.numHeads())
                          .arg(QString::fromUtf8(attn::mechanismName(model_->spec().mechanism).data()))
                          .arg(QString::fromStdString(model_->spec().mask.spec())),
                      0.0, 1.0);
  status_->setText(tr("N = %1   heads = %2   %3 ms   %4")
                       .arg(res.nq())
                       .arg(res.numHeads())
                       .arg(model_->lastComputeMs(), 0, 'f', 2)
                       .arg(res.warnings.empty() ? QString() : QString::fromStdString(res.warnings.front())));
}

}  // namespace attn::ui
