// The list of metrics. Adding a metric: its folder under metrics/, and one line here.
#include "engine/metric.h"
#include "metrics/psnr/psnr.h"
#include "metrics/ssimulacra2/ssimulacra2.h"

namespace vqx {

const std::vector<const MetricDescriptor*>& metric_registry() {
  static const std::vector<const MetricDescriptor*> registry = {
      &psnr_descriptor(),
      &ssimulacra2_descriptor(),
  };
  return registry;
}

}  // namespace vqx
