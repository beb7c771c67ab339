#pragma once
// What a causal model predicts next: the top-5 tokens (from lm_head, computed
// by attn::models::Model::run) with their probabilities as bars, for the
// pinned query position or, with none pinned, the last token. It shows the
// consequence of what the heads attend to. BERT-style models predict no next
// token: the panel shows the masked-LM head's top 5 at a mask token of the text
// (the pinned row's, else the first), or says to type one.
#include <QWidget>
#include <vector>

#include "attn/models/model.h"

class QLabel;

namespace attn::ui {

class ExplorerModel;

class PredictionPanel : public QWidget {
  Q_OBJECT
 public:
  explicit PredictionPanel(ExplorerModel* model, QWidget* parent = nullptr);

  /// The query position the predictions follow, or the mask token's (-1 when there are none).
  int position() const { return position_; }
  /// The predictions shown, most probable first (empty when none apply).
  const std::vector<attn::models::TopToken>& entries() const { return entries_; }
  /// The sentence above the bars (what is predicted, or why nothing is).
  QString heading() const;
  QSize sizeHint() const override { return {300, 220}; }
  /// Lines under the bars on what head interventions changed; empty hides them.
  void setEffect(const QString& text);
  QString effect() const;

 private:
  class Bars;
  void refresh();

  ExplorerModel* model_;
  QLabel* heading_;
  Bars* bars_;
  QLabel* effect_;
  std::vector<attn::models::TopToken> entries_;
  int position_ = -1;
};

/// A token as a reader sees it in a list: quoted, with a newline or tab made visible.
QString visibleToken(const std::string& text);

}  // namespace attn::ui
