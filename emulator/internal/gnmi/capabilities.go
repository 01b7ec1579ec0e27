package gnmi

import (
	"context"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/protobuf/proto"

	"transportlab/emulator/internal/openconfig"
)

// Version is the gNMI specification version of the proto the server is
// built with (its gnmi_service file option: "0.10.0" in openconfig/gnmi
// v0.14.1).
var Version = proto.GetExtension(gpb.File_github_com_openconfig_gnmi_proto_gnmi_gnmi_proto.Options(),
	gpb.E_GnmiService).(string)

// Capabilities names the models, encodings and gNMI version.
func (s *Server) Capabilities(context.Context, *gpb.CapabilityRequest) (*gpb.CapabilityResponse, error) {
	resp := &gpb.CapabilityResponse{SupportedEncodings: Encodings, GNMIVersion: Version}
	for _, m := range openconfig.Modules {
		resp.SupportedModels = append(resp.SupportedModels,
			&gpb.ModelData{Name: m.Name, Organization: m.Organization, Version: m.Version})
	}
	return resp, nil
}
