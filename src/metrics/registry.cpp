// The list of metrics. Adding a metric: its folder under metrics/, and one line here.
// Registration order fixes the order of output columns.
#include "engine/metric.h"
#include "metrics/cambi/cambi.h"
#include "metrics/ciede/ciede.h"
#include "metrics/float_adm/float_adm.h"
#include "metrics/float_ansnr/float_ansnr.h"
#include "metrics/float_moment/float_moment.h"
#include "metrics/float_motion/float_motion.h"
#include "metrics/float_ms_ssim/float_ms_ssim.h"
#include "metrics/float_psnr/float_psnr.h"
#include "metrics/float_ssim/float_ssim.h"
#include "metrics/float_vif/float_vif.h"
#include "metrics/integer_adm/integer_adm.h"
#include "metrics/integer_motion/integer_motion.h"
#include "metrics/integer_vif/integer_vif.h"
#include "metrics/psnr/psnr.h"
#include "metrics/psnr_hvs/psnr_hvs.h"
#include "metrics/speed_chroma/speed_chroma.h"
#include "metrics/speed_temporal/speed_temporal.h"
#include "metrics/ssimulacra2/ssimulacra2.h"

namespace vqx {

const std::vector<const MetricDescriptor*>& metric_registry() {
  static const std::vector<const MetricDescriptor*> registry = {
      &psnr_descriptor(),
      &integer_vif_descriptor(),
      &integer_adm_descriptor(),
      &integer_motion_descriptor(),
      &cambi_descriptor(),
      &speed_chroma_descriptor(),
      &ssimulacra2_descriptor(),
      &float_ms_ssim_descriptor(),
      &float_ssim_descriptor(),
      &ciede_descriptor(),
      &psnr_hvs_descriptor(),
      &float_psnr_descriptor(),
      &float_ansnr_descriptor(),
      &float_moment_descriptor(),
      &float_vif_descriptor(),
      &float_adm_descriptor(),
      &float_motion_descriptor(),
      &speed_temporal_descriptor(),
  };
  return registry;
}

}  // namespace vqx
