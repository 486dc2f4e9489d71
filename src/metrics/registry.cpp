// The list of metrics. Adding a metric: its folder under metrics/, and one line here.
#include "engine/metric.h"
#include "metrics/float_ms_ssim/float_ms_ssim.h"
#include "metrics/float_ssim/float_ssim.h"
#include "metrics/psnr/psnr.h"

namespace vqx {

const std::vector<const MetricDescriptor*>& metric_registry() {
  static const std::vector<const MetricDescriptor*> registry = {
      &psnr_descriptor(),
      &float_ms_ssim_descriptor(),
      &float_ssim_descriptor(),
  };
  return registry;
}

}  // namespace vqx
