#pragma once
// Cross-attention as links between the two sentences, the way alignment figures draw it
// (Bahdanau et al. 2015; BertViz's encoder–decoder head view): the source tokens along the top,
// the target tokens along the bottom, a line from each target token to every source token it
// weighs by at least a threshold, darker for more weight; the argmax link of each target token
// drawn bold, and a reference alignment's links dashed.
#include <QStringList>
#include <QWidget>
#include <vector>

#include "attn/alignment/word_alignment.h"
#include "attn/tensor.h"

namespace attn::ui {

class AlignmentLinksView : public QWidget {
  Q_OBJECT
 public:
  explicit AlignmentLinksView(QWidget* parent = nullptr);

  /// `cross` is [target, source]; links are (source, target) positions in these lists.
  void setAlignment(attn::Mat cross, const QStringList& source, const QStringList& target,
                    std::vector<attn::alignment::Link> argmax);
  void setReference(std::vector<attn::alignment::Link> sure, std::vector<attn::alignment::Link> possible);
  void clear();
  /// Weights under this are not drawn (the argmax links always are).
  void setThreshold(double t);

  int sourceCount() const { return static_cast<int>(source_.size()); }
  int targetCount() const { return static_cast<int>(target_.size()); }
  /// Centre x of token i on the top (source) or bottom (target) row, in widget pixels.
  double tokenX(bool sourceRow, int i) const;

  QSize sizeHint() const override { return {640, 220}; }
  QSize minimumSizeHint() const override { return {200, 100}; }

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  attn::Mat cross_;
  QStringList source_, target_;
  std::vector<attn::alignment::Link> argmax_, sure_, possible_;
  double threshold_ = 0.1;
};

}  // namespace attn::ui
