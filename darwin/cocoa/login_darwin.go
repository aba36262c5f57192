//go:build darwin

package cocoa

import (
	"fmt"

	"github.com/ebitengine/purego/objc"

	"rambar/ramdisk"
)

var (
	selMainAppService = objc.RegisterName("mainAppService")
	selStatus         = objc.RegisterName("status")
	selRegister       = objc.RegisterName("registerAndReturnError:")
	selUnregister     = objc.RegisterName("unregisterAndReturnError:")
	selOpenLoginItems = objc.RegisterName("openSystemSettingsLoginItems")
	selNSErrorCode    = objc.RegisterName("code")
	selNSErrorDomain  = objc.RegisterName("domain")
)

// smService is SMAppService.mainAppService.
type smService struct{ s objc.ID }

// NewLoginService returns RAMBar.app's own login item (macOS 13+, from the
// app bundle only); callers fall back to the LaunchAgent when it refuses.
func NewLoginService() (LoginService, error) {
	if !inBundle() {
		return nil, fmt.Errorf("SMAppService: %w: not running from an app bundle", ramdisk.ErrUnsupported)
	}
	if err := loadFramework("ServiceManagement"); err != nil {
		return nil, err
	}
	var s objc.ID
	err := offMain(func() {
		if cls := class("SMAppService"); cls != 0 {
			s = cls.Send(selMainAppService).Send(selRetain)
		}
	})
	if err != nil {
		return nil, err
	}
	if s == 0 {
		return nil, fmt.Errorf("SMAppService: %w: needs macOS 13 or later", ramdisk.ErrUnsupported)
	}
	return &smService{s: s}, nil
}

// Status implements LoginService.
func (m *smService) Status() (ServiceStatus, error) {
	var st ServiceStatus
	err := offMain(func() { st = ServiceStatus(objc.Send[int](m.s, selStatus)) })
	return st, err
}

// Register implements LoginService.
func (m *smService) Register() error { return m.call(selRegister, "register") }

// Unregister implements LoginService.
func (m *smService) Unregister() error { return m.call(selUnregister, "unregister") }

// call sends a BOOL-returning method that reports failure in an NSError**.
func (m *smService) call(sel objc.SEL, verb string) error {
	var failure error
	err := offMain(func() {
		var nserr objc.ID
		if objc.Send[bool](m.s, sel, &nserr) {
			return
		}
		failure = fmt.Errorf("SMAppService %s: %s (%s %d)", verb, nsError(nserr),
			goString(nserr.Send(selNSErrorDomain)), objc.Send[int](nserr, selNSErrorCode))
	})
	if err != nil {
		return err
	}
	return failure
}

// OpenSettings implements LoginService.
func (m *smService) OpenSettings() {
	offMain(func() { class("SMAppService").Send(selOpenLoginItems) })
}
