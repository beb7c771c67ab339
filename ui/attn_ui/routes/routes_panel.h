#pragma once
// The "Contribution graph" dock: Ferrando & Voita 2024's information flow routes of the
// main window's text (Model::flowRoutes, on a worker with progress and Cancel), drawn by
// RoutesView. The importances of every edge are kept, so a new threshold or position only
// traces the route again (attn::models::routeEdges), at once. Clicking a head's edge shows
// that layer and head in the main views. A failed or cancelled run keeps the graph shown.
#include <QStringList>
#include <QWidget>
#include <memory>
#include <vector>

#include "attn/models/attribution/flow_routes.h"
#include "attn/models/model.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSlider;
class QTimer;

namespace attn::ui {

class ExplorerModel;
class JobControl;
class NewestJob;
class RoutesView;
struct FigureOptions;

class RoutesPanel : public QWidget {
  Q_OBJECT
 public:
  explicit RoutesPanel(ExplorerModel* model, QWidget* parent = nullptr);
  ~RoutesPanel() override;

  /// Computes the importances of the main window's text on a worker.
  void run();
  /// Stops the run in flight; the graph shown stays.
  void cancel();
  void setThreshold(double threshold);
  double threshold() const;
  /// The traced token (0-based) of the graph, or -1 before a run.
  int position() const;
  void setPosition(int position);

  /// The importances of the graph shown (null before a run).
  std::shared_ptr<const attn::models::FlowRoutes> routes() const { return routes_; }
  const attn::models::Encoding& encoding() const { return encoding_; }
  /// The route drawn.
  const std::vector<attn::models::RouteEdge>& edges() const;
  RoutesView* view() const { return view_; }
  QString status() const;
  bool busy() const;
  /// Blocks until the run in flight (if any) has returned and delivered (tests).
  void waitForIdle();
  bool exportFigure(const QString& path, const FigureOptions& options, QString* error);

 private:
  void retrace();
  void showRoutes(std::shared_ptr<const attn::models::FlowRoutes> routes, attn::models::Encoding encoding,
                  QStringList tokens);
  void setStatus(const QString& text);
  void updateControls();
  void showExportDialog();

  ExplorerModel* model_;
  QComboBox* position_;
  QSlider* slider_;
  QDoubleSpinBox* spin_;
  QPushButton* run_;
  QPushButton* cancel_;
  QPushButton* export_;
  QLabel* status_;
  RoutesView* view_;
  QTimer* poll_;
  std::unique_ptr<NewestJob> job_;
  std::shared_ptr<JobControl> last_;  // the newest run's control, cancelled or not (waitForIdle)
  std::shared_ptr<const attn::models::FlowRoutes> routes_;
  attn::models::Encoding encoding_;
  QStringList tokens_;  // encoding_'s tokens as the heatmap labels them
};

}  // namespace attn::ui
