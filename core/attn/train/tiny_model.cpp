#include "attn/train/tiny_model.h"

namespace attn::train {

template <class S>
void ModelParams<S>::forEach(const std::function<void(const std::string&, MatT<S>&)>&) {}
template <class S>
void ModelParams<S>::forEach(const std::function<void(const std::string&, const MatT<S>&)>&) const {}
template <class S>
ModelParams<S> ModelParams<S>::zerosLike() const { return *this; }

ModelParams<float> initModelParams(const TrainConfig&, uint64_t) { return {}; }

template <class S>
PassResult<S> forward(const TrainConfig&, const ModelParams<S>&, const TaskBatch&, bool) { return {}; }
template <class S>
PassResult<S> forwardBackward(const TrainConfig&, const ModelParams<S>&, const TaskBatch&, ModelParams<S>&, bool) {
  return {};
}

template struct ModelParams<float>;
template struct ModelParams<double>;
template PassResult<float> forward(const TrainConfig&, const ModelParams<float>&, const TaskBatch&, bool);
template PassResult<double> forward(const TrainConfig&, const ModelParams<double>&, const TaskBatch&, bool);
template PassResult<float> forwardBackward(const TrainConfig&, const ModelParams<float>&, const TaskBatch&,
                                           ModelParams<float>&, bool);
template PassResult<double> forwardBackward(const TrainConfig&, const ModelParams<double>&, const TaskBatch&,
                                            ModelParams<double>&, bool);

}  // namespace attn::train
