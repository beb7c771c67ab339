#include "attn_ui/pretrained/head_types_controller.h"

#include <QCoreApplication>

#include "attn/models/model.h"
#include "attn_ui/common/background_job.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/explorer/head_grid.h"

namespace attn::ui {

QString headTypeShortText(attn::HeadType type) {
  switch (type) {
    case attn::HeadType::PreviousToken:
      return HeadTypesController::tr("prev-token");
    case attn::HeadType::Induction:
      return HeadTypesController::tr("induction");
    case attn::HeadType::Duplicate:
      return HeadTypesController::tr("duplicate");
    case attn::HeadType::Sink:
      return HeadTypesController::tr("sink");
    case attn::HeadType::Self:
      return HeadTypesController::tr("self");
    case attn::HeadType::Local:
      return HeadTypesController::tr("local");
    case attn::HeadType::Broad:
      return HeadTypesController::tr("broad");
  }
  return {};
}

QString headTypeAbbreviation(attn::HeadType type) {
  switch (type) {
    case attn::HeadType::PreviousToken:
      return HeadTypesController::tr("prev.", "previous-token head");
    case attn::HeadType::Induction:
      return HeadTypesController::tr("ind.", "induction head");
    case attn::HeadType::Duplicate:
      return HeadTypesController::tr("dup.", "duplicate-token head");
    default:
      return headTypeShortText(type);
  }
}

QString headTypeDetailText(attn::HeadType type, const attn::HeadTypeScores& s,
                           const attn::HeadTypeThresholds& t) {
  auto line = [](const QString& name, float v, float bar) {
    return HeadTypesController::tr("%1: %2 (label at ≥ %3)").arg(name).arg(v, 0, 'f', 2).arg(bar, 0, 'g', 2);
  };
  QStringList lines;
  lines << HeadTypesController::tr("Head type: %1 (on a repeated random sequence)")
               .arg(headTypeShortText(type));
  lines << line(HeadTypesController::tr("induction"), s.induction, t.induction);
  lines << line(HeadTypesController::tr("duplicate token"), s.duplicate, t.duplicate);
  lines << line(HeadTypesController::tr("previous token"), s.previousToken, t.previousToken);
  lines << line(HeadTypesController::tr("first token (sink)"), s.sink, t.sink);
  lines << line(HeadTypesController::tr("self"), s.self, t.self);
  lines << line(HeadTypesController::tr("local (±%1 tokens)").arg(attn::kLocalWindow), s.local, t.local);
  return lines.join(QLatin1Char('\n'));
}

HeadTypesController::HeadTypesController(ExplorerModel* model, HeadGrid* grid, QObject* parent)
    : QObject(parent), model_(model), grid_(grid), job_(std::make_unique<NewestJob>(this)) {
  connect(model_, &ExplorerModel::modelChanged, this, &HeadTypesController::start);
  if (model_->hasModel()) start();
}

// The worker stops at its next progress report (~NewestJob cancels it).
HeadTypesController::~HeadTypesController() = default;

bool HeadTypesController::busy() const { return job_->busy(); }

void HeadTypesController::waitForIdle() {
  while (job_->busy()) QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
}

void HeadTypesController::start() {
  result_.reset();
  if (grid_) grid_->setHeadTypes({}, {}, {});
  const auto m = model_->modelPtr();
  if (!m) {
    job_->cancel();
    return;
  }
  struct Outcome {
    std::shared_ptr<const attn::models::ModelHeadTypes> types;
  };
  auto out = std::make_shared<Outcome>();
  job_->start(
      [m, out](JobControl& control) {
        auto progress = [&control](double fraction, std::string_view stage) {
          return control.report(fraction, stage);
        };
        try {
          // A failure (a context too short for two copies) leaves the tiles unlabelled.
          if (auto r = attn::models::modelHeadTypes(*m, {}, progress))
            out->types = std::make_shared<const attn::models::ModelHeadTypes>(std::move(r).value());
        } catch (const std::bad_alloc&) {
        }
      },
      [this, out] {
        result_ = out->types;
        if (grid_ && result_) {
          QVector<QVector<QString>> labels, abbreviations, details;
          for (size_t l = 0; l < result_->types.size(); ++l) {
            labels.append(QVector<QString>());
            abbreviations.append(QVector<QString>());
            details.append(QVector<QString>());
            for (size_t h = 0; h < result_->types[l].size(); ++h) {
              labels.back() << headTypeShortText(result_->types[l][h]);
              abbreviations.back() << headTypeAbbreviation(result_->types[l][h]);
              details.back() << headTypeDetailText(result_->types[l][h], result_->scores[l][h],
                                                   result_->thresholds);
            }
          }
          grid_->setHeadTypes(labels, abbreviations, details);
        }
        emit finished();
      },
      tr("Head types"));
}

}  // namespace attn::ui
