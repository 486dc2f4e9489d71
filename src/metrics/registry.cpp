// The list of metrics. Adding a metric: its folder under metrics/, and one line here.
#include "engine/metric.h"
#include "metrics/cambi/cambi.h"
#include "metrics/psnr/psnr.h"
#include "metrics/speed_chroma/speed_chroma.h"

namespace vqx {

const std::vector<const MetricDescriptor*>& metric_registry() {
  static const std::vector<const MetricDescriptor*> registry = {
      &psnr_descriptor(),
      &cambi_descriptor(),
      &speed_chroma_descriptor(),
  };
  return registry;
}

}  // namespace vqx
