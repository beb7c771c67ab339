#pragma once
// The "Query–key geometry" panel (AttentionViz): the current head's
// queries and keys projected together by core (attn::qkGeometry) and drawn as
// a scatter; hovering a query joins it to its top keys. Follows the explorer's
// result, head and layer, so it works on a model's heads too (their q and k
// are kept by the model run).
#include <QWidget>

#include "attn_ui/spatial/qk_geometry_view.h"

class QLabel;
class QPushButton;
class QSpinBox;

namespace attn::ui {

class ExplorerModel;
struct FigureOptions;

class QkGeometryPanel : public QWidget {
  Q_OBJECT
 public:
  explicit QkGeometryPanel(ExplorerModel* model, QWidget* parent = nullptr);
  QkGeometryView* view() const { return view_; }
  QString message() const;
  bool exportFigure(const QString& path, const FigureOptions& options, QString* error);

 public slots:
  void refresh();

 private:
  void showExportDialog();

  ExplorerModel* model_;
  QSpinBox* topK_;
  QPushButton* export_;
  QLabel* message_;
  QkGeometryView* view_;
};

}  // namespace attn::ui
