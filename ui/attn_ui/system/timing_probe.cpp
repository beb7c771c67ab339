#include "attn_ui/system/timing_probe.h"

#include <QElapsedTimer>
#include <QEvent>
#include <QSlider>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "attn_ui/explorer/config_panel.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/explorer/heatmap_widget.h"
#include "attn_ui/window/main_window.h"
#include "attn_ui/metrics/metrics_panel.h"

namespace attn::ui {
namespace {

// Owned by the window (its QObject parent); one per window.
class TimingProbe : public QObject {
 public:
  explicit TimingProbe(MainWindow& window) : QObject(&window), window_(window) {
    clock_.start();
    ExplorerModel* model = window.model();
    connect(model, &ExplorerModel::inputChanged, this, [this, model] {
      if (!model->hasLoadedInput() || fileShown_ >= 0) return;
      fileShown_ = static_cast<long long>(model->shownGeneration());  // results after this are the file's
      std::fprintf(stderr, "timing file-loaded %lld ms\n", ms());
    });
    connect(model, &ExplorerModel::resultChanged, this, [this, model] {
      std::fprintf(stderr, "timing result %lld ms gen %llu n %d engine %.1f\n", ms(),
                   static_cast<unsigned long long>(model->shownGeneration()),
                   model->hasResult() ? model->result().nq() : 0, model->lastComputeMs());
    });
    window.heatmap()->installEventFilter(this);
    if (auto* metrics = window.findChild<MetricsPanel*>()) {
      connect(metrics, &MetricsPanel::analysisChanged, this, [this, metrics] {
        const int rows = showsFileResult() ? window_.model()->result().nq() : 0;
        const attn::Analysis* a = metrics->analysis();
        if (metricsFilled_ || rows == 0 || !a || a->nq != rows) return;  // the start-up example's
        metricsFilled_ = true;
        std::fprintf(stderr, "timing metrics-filled %lld ms n %d\n", ms(), rows);
      });
    }
    QSlider* slider = window.configPanel()->temperatureSlider();
    connect(slider, &QSlider::valueChanged, this, [this](int value) {
      std::fprintf(stderr, "timing slider-moved %lld ms value %d\n", ms(), value);
    });
  }

  bool eventFilter(QObject* watched, QEvent* event) override {
    if (event->type() == QEvent::Paint) {
      std::fprintf(stderr, "timing heatmap-paint %lld ms gen %llu\n", ms(),
                   static_cast<unsigned long long>(window_.model()->shownGeneration()));
      if (!firstDrawn_ && showsFileResult()) {
        firstDrawn_ = true;
        std::fprintf(stderr, "timing heatmap-first-draw %lld ms n %d\n", ms(), window_.model()->result().nq());
        const QSlider* s = window_.configPanel()->temperatureSlider();
        const QPoint at = s->mapToGlobal(QPoint(0, 0));
        std::fprintf(stderr, "timing slider 0 ms x %d y %d w %d h %d\n", at.x(), at.y(), s->width(), s->height());
      }
    }
    return QObject::eventFilter(watched, event);
  }

 private:
  bool showsFileResult() const {
    const ExplorerModel* m = window_.model();
    return fileShown_ >= 0 && m->hasLoadedInput() && m->hasResult() &&
           static_cast<long long>(m->shownGeneration()) > fileShown_;
  }
  long long ms() const { return static_cast<long long>(clock_.elapsed()); }

  MainWindow& window_;
  QElapsedTimer clock_;
  // The shown generation when the first file was loaded (-1: none yet); a newer one is the file's.
  long long fileShown_ = -1;
  bool firstDrawn_ = false;
  bool metricsFilled_ = false;
};

}  // namespace

bool timingRequested() {
  static const bool on = [] {
    const char* v = std::getenv("ATTNSCOPE_TIMING");
    return v != nullptr && std::strcmp(v, "1") == 0;
  }();
  return on;
}

void installTimingProbe(MainWindow& window) {
  if (timingRequested()) new TimingProbe(window);
}

}  // namespace attn::ui
