#include "attn_ui/common/background_job.h"

namespace attn::ui {

bool JobControl::report(double fraction, std::string_view stage) {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    fraction_ = fraction;
    stage_ = QString::fromUtf8(stage.data(), static_cast<qsizetype>(stage.size()));
  }
  return !cancelled();
}

bool JobControl::report(double fraction) {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    fraction_ = fraction;
  }
  return !cancelled();
}

void JobControl::setStage(const QString& stage) {
  const std::lock_guard<std::mutex> lock(mutex_);
  stage_ = stage;
}

void JobControl::drop() noexcept {
  dropped_ = true;
  cancel_ = true;
}

std::pair<QString, double> JobControl::progress() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return {stage_, fraction_};
}

void JobControl::wait() { future_.waitForFinished(); }

void NewestJob::cancel() {
  ++generation_;
  if (current_) current_->cancel();
  current_.reset();
}

}  // namespace attn::ui
