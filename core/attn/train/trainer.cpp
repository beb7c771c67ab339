#include "attn/train/trainer.h"

namespace attn::train {

struct Trainer::Impl {
  TrainConfig config;
  FixedExample example;
  TrainHistory history;
};

Trainer::Trainer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Trainer::Trainer(Trainer&&) noexcept = default;
Trainer& Trainer::operator=(Trainer&&) noexcept = default;
Trainer::~Trainer() = default;

Result<Trainer> Trainer::create(const TrainConfig& config) {
  if (auto st = validateTrainConfig(config); !st) return st.error();
  return Error{"training engine not implemented yet"};
}
const TrainConfig& Trainer::config() const { return impl_->config; }
const FixedExample& Trainer::example() const { return impl_->example; }
Status Trainer::step() { return Error{"training engine not implemented yet"}; }
Status Trainer::run(int, const std::atomic<bool>*, const std::function<bool(const StepSnapshot&)>&) {
  return Error{"training engine not implemented yet"};
}
void Trainer::reset() {}
int Trainer::stepCount() const { return 0; }
bool Trainer::diverged() const { return false; }
const StepSnapshot& Trainer::latest() const { return impl_->history.steps.back(); }
const TrainHistory& Trainer::history() const { return impl_->history; }
StepSnapshot Trainer::snapshotAt(int) const { return {}; }
int Trainer::parameterCount() const { return 0; }

}  // namespace attn::train
