#pragma once
// Labels the head grid's tiles by what each head does: when a model opens,
// attn::models::modelHeadTypes (one run on a seeded repeated random sequence)
// on a worker; a newer model supersedes a computation still running.
#include <QObject>
#include <QString>
#include <QVector>
#include <memory>

#include "attn/models/experiments/head_types_run.h"

namespace attn::ui {

class ExplorerModel;
class HeadGrid;
class NewestJob;

class HeadTypesController : public QObject {
  Q_OBJECT
 public:
  HeadTypesController(ExplorerModel* model, HeadGrid* grid, QObject* parent = nullptr);
  ~HeadTypesController() override;

  /// The newest result (null before one, or without a model).
  std::shared_ptr<const attn::models::ModelHeadTypes> result() const { return result_; }
  bool busy() const;
  /// Blocks until the computation in progress has been delivered (tests).
  void waitForIdle();

 signals:
  void finished();  // a result or a failure

 private:
  void start();

  ExplorerModel* model_;
  HeadGrid* grid_;
  std::unique_ptr<NewestJob> job_;
  std::shared_ptr<const attn::models::ModelHeadTypes> result_;
};

/// A tile's short label ("induction", "prev-token", ...), translated.
QString headTypeShortText(attn::HeadType type);
/// Its abbreviation for tiles too narrow for the label ("ind.", "prev.", ...).
QString headTypeAbbreviation(attn::HeadType type);
/// The tooltip lines: the label and every score, with the thresholds.
QString headTypeDetailText(attn::HeadType type, const attn::HeadTypeScores& s,
                           const attn::HeadTypeThresholds& t);

}  // namespace attn::ui
