#include "attn_ui/explorer/toy_input_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>
#include <cmath>

#include "attn/teaching/step_through.h"
#include "attn_ui/explorer/heatmap_widget.h"
#include "attn_ui/classroom/step_through_panel.h"

namespace attn::ui {
namespace {

// Small whole numbers a class can multiply in their heads: token 2 ("cat")
// matches the query of token 3 ("sat") best.
constexpr float kQ[4][4] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 1}, {1, 1, 0, 0}};
constexpr float kK[4][4] = {{1, 0, 0, 0}, {0, 2, 0, 0}, {1, 1, 0, 0}, {0, 0, 1, 0}};
constexpr float kV[4][4] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}};

QTableWidget* makeTable(QWidget* parent, const QString& tip) {
  auto* t = new QTableWidget(4, 4, parent);
  t->setToolTip(tip);
  t->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  t->verticalHeader()->setDefaultSectionSize(22);
  t->setMinimumHeight(120);
  return t;
}

void fill(QTableWidget* t, const float (&v)[4][4]) {
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) t->setItem(r, c, new QTableWidgetItem(QString::number(v[r][c])));
}

}  // namespace

ToyInputPanel::ToyInputPanel(QWidget* parent)
    : QWidget(parent),
      q_(makeTable(this, tr("Q: one row per token (its query vector)"))),
      k_(makeTable(this, tr("K: one row per token (its key vector)"))),
      v_(makeTable(this, tr("V: one row per token (its value vector)"))),
      tokensCount_(new QSpinBox(this)),
      dims_(new QSpinBox(this)),
      tokens_(new QLineEdit(QStringLiteral("the cat sat down"), this)),
      causal_(new QCheckBox(tr("Causal mask"), this)),
      scaled_(new QCheckBox(tr("Scale by √d_k"), this)),
      temperature_(new QDoubleSpinBox(this)),
      queryBox_(new QComboBox(this)),
      heatmap_(new HeatmapWidget(this)),
      steps_(new StepThroughPanel(this)),
      status_(new QLabel(this)) {
  fill(q_, kQ);
  fill(k_, kK);
  fill(v_, kV);
  tokensCount_->setRange(1, 12);
  tokensCount_->setValue(4);
  dims_->setRange(1, 8);
  dims_->setValue(4);
  scaled_->setChecked(true);
  temperature_->setRange(0.05, 20.0);
  temperature_->setSingleStep(0.1);
  temperature_->setValue(1.0);
  tokens_->setToolTip(tr("Token labels, separated by spaces."));

  auto* options = new QFormLayout;
  options->addRow(tr("Tokens"), tokens_);
  auto* sizes = new QHBoxLayout;
  sizes->addWidget(tokensCount_);
  sizes->addWidget(new QLabel(tr("tokens ×"), this));
  sizes->addWidget(dims_);
  sizes->addWidget(new QLabel(tr("dims"), this));
  sizes->addStretch();
  options->addRow(tr("Size"), sizes);
  auto* flags = new QHBoxLayout;
  flags->addWidget(scaled_);
  flags->addWidget(causal_);
  flags->addWidget(new QLabel(tr("T"), this));
  flags->addWidget(temperature_);
  flags->addStretch();
  options->addRow(flags);

  auto* tables = new QGridLayout;
  int col = 0;
  for (auto [t, name] : {std::pair{q_, "Q"}, {k_, "K"}, {v_, "V"}}) {
    tables->addWidget(new QLabel(QString("<b>%1</b>").arg(name), this), 0, col);
    tables->addWidget(t, 1, col++);
  }
  auto* left = new QVBoxLayout;
  left->addLayout(options);
  left->addLayout(tables, 1);
  left->addWidget(heatmap_, 2);
  left->addWidget(status_);
  auto* right = new QVBoxLayout;
  auto* qrow = new QHBoxLayout;
  qrow->addWidget(new QLabel(tr("Query:"), this));
  qrow->addWidget(queryBox_, 1);
  right->addLayout(qrow);
  right->addWidget(steps_, 1);
  auto* layout = new QHBoxLayout(this);
  layout->addLayout(left, 3);
  layout->addLayout(right, 2);
  heatmap_->setColorScaleLabel(tr("weight"));

  for (auto* t : {q_, k_, v_}) connect(t, &QTableWidget::cellChanged, this, &ToyInputPanel::recompute);
  connect(tokens_, &QLineEdit::textChanged, this, &ToyInputPanel::recompute);
  connect(causal_, &QCheckBox::toggled, this, &ToyInputPanel::recompute);
  connect(scaled_, &QCheckBox::toggled, this, &ToyInputPanel::recompute);
  connect(temperature_, &QDoubleSpinBox::valueChanged, this, &ToyInputPanel::recompute);
  connect(tokensCount_, &QSpinBox::valueChanged, this, [this](int n) { resizeTables(n, dims_->value()); });
  connect(dims_, &QSpinBox::valueChanged, this, [this](int d) { resizeTables(tokensCount_->value(), d); });
  connect(queryBox_, &QComboBox::activated, this, &ToyInputPanel::setQuery);
  recompute();
}

QTableWidget* ToyInputPanel::table(Matrix m) const { return m == Matrix::Q ? q_ : m == Matrix::K ? k_ : v_; }

QString ToyInputPanel::errorText() const { return result_ ? QString() : status_->text(); }

void ToyInputPanel::resizeTables(int tokens, int dims) {
  for (auto* t : {q_, k_, v_}) {
    const QSignalBlocker block(t);
    t->setRowCount(tokens);
    t->setColumnCount(dims);
    for (int r = 0; r < tokens; ++r)
      for (int c = 0; c < dims; ++c)
        if (!t->item(r, c)) t->setItem(r, c, new QTableWidgetItem("0"));
  }
  {
    const QSignalBlocker b1(tokensCount_), b2(dims_);
    tokensCount_->setValue(tokens);
    dims_->setValue(dims);
  }
  recompute();
}

attn::AttentionInput ToyInputPanel::readInput(QString* error) const {
  attn::AttentionInput in;
  auto read = [&](QTableWidget* t, const char* name) {
    attn::Mat m(t->rowCount(), t->columnCount());
    for (int r = 0; r < t->rowCount(); ++r)
      for (int c = 0; c < t->columnCount(); ++c) {
        auto* item = t->item(r, c);
        bool ok = false;
        const double v = item ? QLocale::c().toDouble(item->text().trimmed().replace(QChar(0x2212), '-'), &ok) : 0.0;
        const bool good = ok && std::isfinite(v);
        if (item) item->setBackground(good ? QBrush() : QBrush(QColor(255, 180, 180)));
        if (!good && error->isEmpty())
          *error = tr("%1[%2, %3]: '%4' is not a number").arg(name).arg(r + 1).arg(c + 1).arg(item ? item->text() : QString());
        m(r, c) = good ? static_cast<float>(v) : 0.0f;
      }
    return m;
  };
  in.q = {read(q_, "Q")};
  in.k = {read(k_, "K")};
  in.v = {read(v_, "V")};
  QStringList labels = tokens_->text().split(' ', Qt::SkipEmptyParts);
  for (int i = 0; i < q_->rowCount(); ++i)
    in.queryTokens.push_back((i < labels.size() ? labels[i] : QString("t%1").arg(i + 1)).toStdString());
  return in;
}

void ToyInputPanel::setQuery(int query) {
  query_ = query;
  recompute();
}

void ToyInputPanel::recompute() {
  QString error;
  // Item backgrounds change while reading; that must not re-enter recompute.
  const QSignalBlocker bq(q_), bk(k_), bv(v_);
  const attn::AttentionInput in = readInput(&error);
  spec_.mechanism = scaled_->isChecked() ? attn::Mechanism::ScaledDot : attn::Mechanism::Dot;
  spec_.mask = causal_->isChecked() ? attn::Mask::causal() : attn::Mask();
  spec_.temperature = static_cast<float>(temperature_->value());
  if (error.isEmpty()) {
    auto res = attn::runAttention(in, spec_);
    if (res) result_ = std::move(res).value();
    else error = QString::fromStdString(res.error().message);
  }
  if (!error.isEmpty()) {
    result_.reset();  // the old picture would no longer match the tables
    status_->setText(error);
    steps_->clearWalk();
    emit resultChanged();
    return;
  }
  status_->clear();
  QStringList labels;
  for (const auto& t : result_->queryTokens) labels << QString::fromStdString(t);
  if (query_ >= labels.size()) query_ = 0;
  {
    const QSignalBlocker block(queryBox_);
    queryBox_->clear();
    for (int i = 0; i < labels.size(); ++i) queryBox_->addItem(QString("%1: %2").arg(i).arg(labels[i]));
    queryBox_->setCurrentIndex(query_);
  }
  heatmap_->setMatrix(result_->heads[0].weights, labels, labels, scaled_->isChecked() ? tr("Toy example: softmax(QKᵀ/√d_k)") : tr("Toy example: softmax(QKᵀ)"), 0.0, 1.0);
  if (auto walk = attn::stepThrough(result_->heads[0], spec_, query_)) steps_->setWalk(*walk, labels, labels[query_]);
  emit resultChanged();
}

}  // namespace attn::ui
